// Package gan trains models in small number formats: a generic trainer
// over named parameter groups (G and D; or G_AB, G_BA, D_A, D_B), each
// with its own Adam state, running the updates of a Model's training step
// in order, with loss scaling per update (static or dynamic, backing off
// on gradient overflow and on saturation of the error format),
// exponent-bias re-estimation, fixed-noise sample grids, a CSV log, and
// checkpoints from which a run resumes bit for bit.
//
// A Model (defined in package models, or anywhere) builds its networks on
// an nn.Scope, declares its inputs, fills them each step (Feed), and
// builds each update's loss (Loss) in a Graph of its own: the trainer
// builds one Gorgonia graph per update over the same parameter tensors
// (Gorgonia cannot take two gradients of one graph over overlapping
// paths). Gradients are read after each run and applied by Adam in
// place, so the optimiser's state is plain data that a checkpoint saves.
//
// Reproducibility: the run's seed drives the initialisation, the noise,
// the data order and stochastic rounding; a checkpoint holds every piece
// of state (parameters, batch-norm running statistics, Adam moments and
// step counts, loss scalers, exponent biases, data loader positions,
// noise generator), so that N steps, or N/2 steps, a checkpoint and N/2
// more, give the same bits. Stochastic rounding's random streams live
// inside the layers of nn and cannot be saved; taking a checkpoint
// restarts them from a seed derived from the step, and so does resuming,
// which keeps resumed runs exact. A run stopped with Ctrl-C (a checkpoint
// at an arbitrary step) therefore differs, with stochastic rounding only,
// from one never stopped.
//
// Evaluation: Load builds a model's networks from a checkpoint with batch
// norm in evaluation mode (running statistics), so that an image does not
// depend on the batch it is made in; SampleOptions.BatchStats keeps the
// reference DCGAN evaluation, which normalises each batch by its own
// statistics.
package gan
