package compute

// Norm is the shape and mode of a batch or instance normalisation of an
// (N, C, Inner) tensor: N samples of C channels of Inner values each. A
// group is the set of values normalised together: one channel across the
// batch, or, with PerSample (instance norm), one channel of one sample.
type Norm struct {
	N, C, Inner int
	PerSample   bool
	Eps         float64 // added to the variance
	// Running normalises by the running mean and variance instead of the
	// group's statistics: batch norm in evaluation mode.
	Running bool
	// Update, with batch statistics, folds them into the running ones:
	// running = (1-Momentum)·running + Momentum·batch, with the unbiased
	// variance, as PyTorch does.
	Update   bool
	Momentum float64
}

// Groups returns the number of groups per channel: N with PerSample,
// otherwise 1. Group gi of channel c has its 1/σ at invstd[c·Groups()+gi].
func (g Norm) Groups() int {
	if g.PerSample {
		return g.N
	}
	return 1
}

// NormForward sets y = γ·x̂ + β per channel, x̂ = (x - mean)/√(variance +
// Eps) with the mean and variance of each group (or, with g.Running, the
// running ones), computed in float64. It keeps the mean and 1/σ of every
// group in mu and invstd (C·Groups() values each, group gi of channel c at
// c·Groups()+gi) for the backward kernels, which recompute x̂ from x with
// the same operations (so the same bits) rather than read it from memory,
// and with g.Update updates the running mean and variance (nil
// for instance norm). The sums over a group are each one chain of float64
// adds in element order. w keeps the kernel's state between calls (nil:
// none).
func NormForward[T Float](w *Workspace, y, x, gamma, beta, mean, variance []T, mu, invstd []float64, g Norm) {
	switch y := any(y).(type) {
	case []float32:
		impl.NormForward(w, y, any(x).([]float32), any(gamma).([]float32), any(beta).([]float32),
			any(mean).([]float32), any(variance).([]float32), mu, invstd, g)
	case []float64:
		impl.NormForward64(w, y, any(x).([]float64), any(gamma).([]float64), any(beta).([]float64),
			any(mean).([]float64), any(variance).([]float64), mu, invstd, g)
	default:
		panic(errType)
	}
}

// NormSums sets sumDy[c] and sumDyHat[c] to Σdy and Σdy·x̂ over channel c
// of the whole batch, for x, mu and invstd of NormForward: the gradients
// of γ and β, and what batch norm's NormBackX needs.
func NormSums[T Float](w *Workspace, sumDy, sumDyHat []float64, dy, x []T, mu, invstd []float64, g Norm) {
	switch dy := any(dy).(type) {
	case []float32:
		impl.NormSums(w, sumDy, sumDyHat, dy, any(x).([]float32), mu, invstd, g)
	case []float64:
		impl.NormSums64(w, sumDy, sumDyHat, dy, any(x).([]float64), mu, invstd, g)
	default:
		panic(errType)
	}
}

// NormBackX sets dx to the gradient of NormForward's input given dy, the
// gradient of its output: γ·inv/m·(m·dy − Σdy − x̂·Σdy·x̂) over each
// group of m values, or γ·inv·dy with g.Running, for x, mu and invstd of
// NormForward. Batch norm with batch
// statistics takes the sums from sumDy and sumDyHat (NormSums); the other
// cases ignore them.
func NormBackX[T Float](w *Workspace, dx, dy, gamma, x []T, mu, invstd, sumDy, sumDyHat []float64, g Norm) {
	switch dx := any(dx).(type) {
	case []float32:
		impl.NormBackX(w, dx, any(dy).([]float32), any(gamma).([]float32), any(x).([]float32), mu, invstd, sumDy, sumDyHat, g)
	case []float64:
		impl.NormBackX64(w, dx, any(dy).([]float64), any(gamma).([]float64), any(x).([]float64), mu, invstd, sumDy, sumDyHat, g)
	default:
		panic(errType)
	}
}
