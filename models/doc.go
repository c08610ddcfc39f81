// Package models builds the GANs positgan trains: the conditional MLP GAN
// for MNIST (CGAN) and DCGAN for 28x28 and 64x64 images, from the fused
// quantized layers of models/nn, so that every dot product rounds its
// operands, output, errors and weight gradients as a quantization policy
// says for that layer.
//
// A GAN's parameters live in one graph; Net.Share copies a network into
// another graph over the same tensors, which is how a trainer builds its
// discriminator-step and generator-step graphs (Gorgonia cannot take two
// gradients of one graph over overlapping paths).
//
// Layer names are "G/fc1" ... and "D/conv1" ...; policies address them by
// glob ("G/*"). The remaining ops (activations, batch norm, the
// concatenation of labels and the softplus loss) are float32 and written
// here rather than taken from Gorgonia, so that every op in the graph is
// gradient-checked and reuses its buffers.
package models
