// Package gan trains GANs in small number formats: the adversarial loop
// with alternating discriminator and generator updates, Adam, the
// non-saturating loss, loss scaling (static or dynamic, backing off on
// gradient overflow and on saturation of the error format), exponent-bias
// re-estimation, fixed-noise sample grids, a CSV log, and checkpoints
// from which a run resumes bit for bit.
//
// A Trainer holds two Gorgonia graphs over one GAN's parameter tensors:
// the discriminator step (G makes fakes, D judges real and fake, gradients
// for D) and the generator step (D judges G's fakes, gradients for G).
// Gradients are read after each run and applied by Adam in place, so the
// optimiser's state is plain data that a checkpoint saves.
//
// Reproducibility: the run's seed drives the initialisation, the noise and
// fake labels, the data order and stochastic rounding; a checkpoint holds
// every piece of state (parameters, Adam moments and step counts, loss
// scalers, exponent biases, data loader position, noise generator), so
// that N steps, or N/2 steps, a checkpoint and N/2 more, give the same
// bits. Stochastic rounding's random streams live inside the layers of
// models/nn and cannot be saved; taking a checkpoint restarts them from a
// seed derived from the step, and so does resuming, which keeps resumed
// runs exact. A run stopped with Ctrl-C (a checkpoint at an arbitrary
// step) therefore differs, with stochastic rounding only, from one never
// stopped.
package gan
