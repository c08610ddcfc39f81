package gan

// A Phased model does not run all its updates at every step: ESRGAN's
// PSNR-oriented pre-training runs only an L1 update of the generator, and
// the GAN phase after it runs the generator's adversarial update and the
// discriminator's. An update whose loss is merely weighted by zero would
// still cost its whole forward and backward pass; an inactive one costs
// nothing.
//
// After Feed the trainer asks Active about each update of Updates, in
// order. An inactive update is not run: its graph is not executed, its
// loss and metrics are logged as 0, it counts as neither applied nor
// skipped, and its loss scaler and the Adam states of its groups are left
// as they are. Active must depend only on state the model keeps in
// checkpoints (Stateful), so that a resumed run activates the same
// updates.
type Phased interface {
	Model
	Active(u Update) bool
}
