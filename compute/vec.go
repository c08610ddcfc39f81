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

// Scale sets dst = x·a: the first pass of Adam split for rounding between
// its passes, and the residual scaling of a layer.
func Scale[T Float](dst, x []T, a T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Scale(d, any(x).([]float32), float32(a))
	case []float64:
		impl.Scale64(d, any(x).([]float64), float64(a))
	default:
		panic(errType)
	}
}

// AdamMoments sets m ← β1·m + (1-β1)·g and v ← β2·v + (1-β2)·g·g, the
// second pass of Adam (g already scaled).
func AdamMoments(m, v, g []float32, b1, b2 float32) { impl.AdamMoments(m, v, g, b1, b2) }

// AdamApply sets p ← p - lr·m / (√v/sc2 + ε), the last pass of Adam.
func AdamApply(p, m, v []float32, lr, sc2, eps float32) { impl.AdamApply(p, m, v, lr, sc2, eps) }

// Add sets dst = a + b, element by element over a.
func Add[T Float](dst, a, b []T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Add(d, any(a).([]float32), any(b).([]float32))
	case []float64:
		impl.Add64(d, any(a).([]float64), any(b).([]float64))
	default:
		panic(errType)
	}
}

// LeakyReLU sets dst = x where x > 0 and alpha·x elsewhere (NaN
// included); alpha 0 is ReLU.
func LeakyReLU[T Float](dst, x []T, alpha T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.LeakyReLU(d, any(x).([]float32), float32(alpha))
	case []float64:
		impl.LeakyReLU64(d, any(x).([]float64), float64(alpha))
	default:
		panic(errType)
	}
}

// LeakyReLUBack sets dst = dy where x > 0 and alpha·dy elsewhere: the
// gradient of LeakyReLU at x.
func LeakyReLUBack[T Float](dst, dy, x []T, alpha T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.LeakyReLUBack(d, any(dy).([]float32), any(x).([]float32), float32(alpha))
	case []float64:
		impl.LeakyReLUBack64(d, any(dy).([]float64), any(x).([]float64), float64(alpha))
	default:
		panic(errType)
	}
}

// Tanh sets dst = tanh(x), computed in float64 and rounded once.
func Tanh[T Float](dst, x []T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Tanh(d, any(x).([]float32))
	case []float64:
		impl.Tanh64(d, any(x).([]float64))
	default:
		panic(errType)
	}
}

// TanhBack sets dst = dy·(1 - y·y): the gradient of tanh given its output
// y.
func TanhBack[T Float](dst, dy, y []T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.TanhBack(d, any(dy).([]float32), any(y).([]float32))
	case []float64:
		impl.TanhBack64(d, any(dy).([]float64), any(y).([]float64))
	default:
		panic(errType)
	}
}

// Sigmoid sets dst = 1/(1+exp(-x)), computed in float64 without overflow
// for any x (0 or 1 exactly far out, never NaN).
func Sigmoid[T Float](dst, x []T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Sigmoid(d, any(x).([]float32))
	case []float64:
		impl.Sigmoid64(d, any(x).([]float64))
	default:
		panic(errType)
	}
}

// SigmoidBack sets dst = dy·(1-y)·y, in that order as PyTorch computes
// it: the gradient of the sigmoid given its output y.
func SigmoidBack[T Float](dst, dy, y []T) {
	switch d := any(dst).(type) {
	case []float32:
		impl.SigmoidBack(d, any(dy).([]float32), any(y).([]float32))
	case []float64:
		impl.SigmoidBack64(d, any(dy).([]float64), any(y).([]float64))
	default:
		panic(errType)
	}
}

// CountLimit returns the number of values of x that are ±Inf or NaN, and
// the number of the others whose magnitude is at least limit (|x| >=
// limit as float32 compares them; a NaN limit counts none, a limit ≤ 0
// every finite value).
func CountLimit(x []float32, limit float32) (nonFinite, atLimit int) {
	return impl.CountLimit(x, limit)
}
