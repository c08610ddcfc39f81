package compute

import "math"

// The kernels of the activations that internal/vec does not vectorise:
// the float64 ones (gradient checks) and tanh's and sigmoid's gradients.

// leaky sets dst = src where src > 0 and alpha·src elsewhere (alpha 0:
// ReLU). float32, the training path, runs internal/vec's branch-free
// kernel instead: activations have random signs, on which a branch
// mispredicts half the time.
func leaky[T Float](dst, src []T, alpha T) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v > 0 {
			dst[i] = v
		} else {
			dst[i] = alpha * v
		}
	}
}

// leakyBack sets dst = dy where x > 0 and alpha·dy elsewhere.
func leakyBack[T Float](dst, dy, x []T, alpha T) {
	dst, x = dst[:len(dy)], x[:len(dy)]
	for i, d := range dy {
		if x[i] > 0 {
			dst[i] = d
		} else {
			dst[i] = alpha * d
		}
	}
}

// tanh sets dst = tanh(src), computed in float64. float32 runs
// internal/vec's kernel instead (four values at a time, every branch of
// math.Tanh computed and blended, which is both vector work and free of
// math.Tanh's branch on |x| >= 0.625, unpredictable on activations).
func tanh[T Float](dst, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = T(math.Tanh(float64(v)))
	}
}

func tanhBack[T Float](dst, dy, y []T) {
	dst, y = dst[:len(dy)], y[:len(dy)]
	for i, d := range dy {
		dst[i] = d * (1 - T(y[i]*y[i])) // T(…) stops arm64 fusing a multiply-add: same bits as amd64
	}
}

// sigmoid returns 1/(1+exp(-x)) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func sigmoidTo[T Float](dst, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = T(sigmoid(float64(v)))
	}
}

func sigmoidBack[T Float](dst, dy, y []T) {
	dst, y = dst[:len(dy)], y[:len(dy)]
	for i, d := range dy {
		dst[i] = d * (1 - y[i]) * y[i] // PyTorch's order
	}
}
