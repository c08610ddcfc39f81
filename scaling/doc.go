// Package scaling chooses exponent biases and loss scales for training in
// small formats, following the posit GAN recipe (Ho et al., "Posit
// arithmetic for the training and deployment of GANs"): shift each tensor by
// a power of two so that the bulk of its values sits in the format's most
// accurate binades, and scale the loss so that errors flowing back do the
// same.
//
// Everything here works on plain float32 slices and quant.Formats; the
// training loop decides when to measure and re-estimate.
package scaling
