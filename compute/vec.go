package compute

// Adam applies one Adam update to a tensor, element by element:
//
//	g ← g·inv
//	m ← β1·m + (1-β1)·g
//	v ← β2·v + (1-β2)·g·g
//	p ← p - lr·m / (√v/sc2 + ε)
//
// updating p, m and v in place (g is read only). inv undoes loss scaling,
// lr and sc2 fold in the bias corrections as PyTorch does. The other
// slices must be at least as long as p.
func Adam(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32) {
	impl.Adam(p, g, m, v, inv, b1, b2, lr, sc2, eps)
}

// Scale sets dst = x·a, the first pass of Adam split for rounding between
// its passes.
func Scale(dst, x []float32, a float32) { impl.Scale(dst, x, a) }

// AdamMoments sets m ← β1·m + (1-β1)·g and v ← β2·v + (1-β2)·g·g, the
// second pass of Adam (g already scaled).
func AdamMoments(m, v, g []float32, b1, b2 float32) { impl.AdamMoments(m, v, g, b1, b2) }

// AdamApply sets p ← p - lr·m / (√v/sc2 + ε), the last pass of Adam.
func AdamApply(p, m, v []float32, lr, sc2, eps float32) { impl.AdamApply(p, m, v, lr, sc2, eps) }

// LeakyReLU sets dst = x where x > 0 and alpha·x elsewhere (NaN
// included); alpha 0 is ReLU.
func LeakyReLU(dst, x []float32, alpha float32) { impl.LeakyReLU(dst, x, alpha) }

// LeakyReLUBack sets dst = dy where x > 0 and alpha·dy elsewhere: the
// gradient of LeakyReLU at x.
func LeakyReLUBack(dst, dy, x []float32, alpha float32) { impl.LeakyReLUBack(dst, dy, x, alpha) }

// Tanh sets dst = float32(math.Tanh(float64(x))).
func Tanh(dst, x []float32) { impl.Tanh(dst, x) }

// CountLimit returns the number of values of x that are ±Inf or NaN, and
// the number of the others whose magnitude is at least limit (|x| >=
// limit as float32 compares them; a NaN limit counts none, a limit ≤ 0
// every finite value).
func CountLimit(x []float32, limit float32) (nonFinite, atLimit int) {
	return impl.CountLimit(x, limit)
}
