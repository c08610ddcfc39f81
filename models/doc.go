// Package models defines the models positgan trains and keeps the
// registry that finds them by name: the conditional MLP GAN for MNIST
// (CGAN) and DCGAN, one file each, built from the layer library
// nn, so that every dot product rounds its operands, output,
// errors and weight gradients as a quantization policy says for that
// layer.
//
// A model is a file that calls Register from its init function with a
// Spec: its name, default configuration and constructor. The constructor
// returns a gan.Model (networks in parameter groups, inputs, the updates
// of a training step and their losses), which package gan trains. The
// CLI, compare, sample and checkpoints find models through the registry
// (Names, Lookup, New); Load and Resume rebuild the model a checkpoint
// holds. docs/adding-a-model.md walks through writing one.
//
// Layer names are "G/fc1" ... and "D/conv1" ...: the scopes of nn.Scope
// give them, and policies address them by glob ("G/*").
package models
