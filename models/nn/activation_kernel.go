package nn

import (
	"math"

	"github.com/positgan/positgan/internal/gemm"
)

func leaky[T gemm.Float](dst, src []T, alpha T) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v > 0 {
			dst[i] = v
		} else {
			dst[i] = alpha * v
		}
	}
}

func leakyBack[T gemm.Float](dst, dy, x []T, alpha T) {
	dst, x = dst[:len(dy)], x[:len(dy)]
	for i, d := range dy {
		if x[i] > 0 {
			dst[i] = d
		} else {
			dst[i] = alpha * d
		}
	}
}

func tanh[T gemm.Float](dst, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = T(math.Tanh(float64(v)))
	}
}

func tanhBack[T gemm.Float](dst, dy, y []T) {
	dst, y = dst[:len(dy)], y[:len(dy)]
	for i, d := range dy {
		dst[i] = d * (1 - y[i]*y[i])
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

func sigmoidTo[T gemm.Float](dst, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = T(sigmoid(float64(v)))
	}
}

func sigmoidBack[T gemm.Float](dst, dy, y []T) {
	dst, y = dst[:len(dy)], y[:len(dy)]
	for i, d := range dy {
		dst[i] = d * (1 - y[i]) * y[i] // PyTorch's order
	}
}
