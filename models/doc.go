// Package models defines the models positgan trains and keeps the
// registry that finds them by name: the conditional MLP GAN for MNIST
// (CGAN), DCGAN, CycleGAN and ESRGAN, one file each, built from the
// layer library nn, so that every dot product rounds its operands,
// output, errors and weight gradients as a quantization policy says for
// that layer.
//
// A model is a file that calls Register from its init function with a
// Spec: its name, default configuration and constructor and, for a model
// that does not make images from noise, its Evaluator, which a sweep
// (package experiment) measures it by. The constructor returns a
// gan.Model (networks in parameter groups, inputs, the updates of a
// training step and their losses), which package gan trains. Its
// inference entry point is an interface the model implements:
// gan.Generator for images made from noise (positgan sample), ImageMapper
// for images made from images (Translate, Upscaler; positgan translate
// and upscale). The CLI, compare, sample and checkpoints find models
// through the registry (Names, Lookup, New); Load and Resume rebuild the
// model a checkpoint holds. docs/adding-a-model.md walks through writing
// one.
//
// The evaluations of CycleGAN (the FID of each direction of
// translation, TranslationFID) and ESRGAN (the figures of
// super-resolution papers, ScoreSR) sit beside them, in cyclegan_eval.go
// and esrgan_eval.go.
//
// Layer names are "G/fc1" ... and "D/conv1" ...: the scopes of nn.Scope
// give them, and policies address them by glob ("G/*").
package models
