package vec

import "math"

// Adam applies one Adam update to a tensor, element by element:
//
//	g ← g·inv
//	m ← β1·m + (1-β1)·g
//	v ← β2·v + (1-β2)·g·g
//	p ← p - lr·m / (√v/sc2 + ε)
//
// updating p, m and v in place (g is read only). inv undoes loss scaling,
// lr and sc2 fold in the bias corrections as PyTorch does.
func Adam(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32) {
	n := len(p)
	adam(p, g[:n], m[:n], v[:n], inv, b1, 1-b1, b2, 1-b2, lr, sc2, eps)
}

// Scale sets dst = x·a, the first pass of Adam.
func Scale(dst, x []float32, a float32) {
	scale(dst, x[:len(dst)], a)
}

// AdamMoments sets m ← β1·m + (1-β1)·g and v ← β2·v + (1-β2)·g·g, the
// second pass of Adam (g already scaled).
func AdamMoments(m, v, g []float32, b1, b2 float32) {
	n := len(m)
	moments(m, v[:n], g[:n], b1, 1-b1, b2, 1-b2)
}

// AdamApply sets p ← p - lr·m / (√v/sc2 + ε), the last pass of Adam.
func AdamApply(p, m, v []float32, lr, sc2, eps float32) {
	n := len(p)
	apply(p, m[:n], v[:n], lr, sc2, eps)
}

// LeakyReLU sets dst = x where x > 0 and alpha·x elsewhere (NaN
// included); alpha 0 is ReLU.
func LeakyReLU(dst, x []float32, alpha float32) {
	leaky(dst, x[:len(dst)], alpha)
}

// LeakyReLUBack sets dst = dy where x > 0 and alpha·dy elsewhere: the
// gradient of LeakyReLU at x.
func LeakyReLUBack(dst, dy, x []float32, alpha float32) {
	n := len(dst)
	leakyBack(dst, dy[:n], x[:n], alpha)
}

// Tanh sets dst = float32(math.Tanh(float64(x))).
func Tanh(dst, x []float32) {
	tanh(dst, x[:len(dst)])
}

// CountLimit returns the number of values of x that are ±Inf or NaN, and
// the number of the others whose magnitude is at least limit (|x| >=
// limit as float32 compares them; a NaN limit counts none, a limit ≤ 0
// every finite value).
func CountLimit(x []float32, limit float32) (nonFinite, atLimit int) {
	// The assembly counts in 32-bit lanes: chunks keep them from
	// overflowing.
	const chunk = 1 << 30
	lo := limitBits(limit)
	for len(x) > 0 {
		c := x[:min(len(x), chunk)]
		x = x[len(c):]
		ge, inf := count(c, lo)
		nonFinite += inf
		atLimit += ge - inf
	}
	return nonFinite, atLimit
}

// limitBits returns the lo for which count's ge - inf is CountLimit's
// atLimit. On the bits a of |x|, which order as |x| does, |x| >= limit
// for finite x is a >= lo, and x is non-finite when a >= infBits; lo is
// at most infBits, so ge counts the non-finite values too.
func limitBits(limit float32) uint32 {
	switch {
	case limit > 0: // +Inf included: its bits are infBits
		return math.Float32bits(limit)
	case limit <= 0:
		return 0
	}
	return infBits // NaN: no finite value
}

// infBits is the bits of +Inf: the magnitudes at or above it are ±Inf
// and NaN.
const infBits = 0x7f800000
