package nn

import (
	"math"

	"github.com/positgan/positgan/compute"
)

// Kernels of loss.go and projection.go.

// lossSum returns Σ f(x[i] - y[i]) in float64, or Σ f(x[i] - c) when y is
// nil; the difference is taken in T.
func lossSum[T compute.Float](kind lossKind, x, y []T, c T) float64 {
	if y != nil {
		y = y[:len(x)]
	}
	var s float64
	for i, v := range x {
		d := v - c
		if y != nil {
			d = v - y[i]
		}
		switch kind {
		case lossL1:
			s += math.Abs(float64(d))
		case lossMSE:
			s += float64(float64(d) * float64(d)) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
		}
	}
	return s
}

// lossGrad sets dst[i] to k·f'(d) for d = x[i] - y[i] (y nil: x[i] - c),
// with f'(d) = sign(d) (0 at 0) for L1 and d for MSE (k holds the 2).
func lossGrad[T compute.Float](kind lossKind, dst, x, y []T, c T, k float64) {
	dst = dst[:len(x)]
	if y != nil {
		y = y[:len(x)]
	}
	for i, v := range x {
		d := v - c
		if y != nil {
			d = v - y[i]
		}
		switch kind {
		case lossL1:
			dst[i] = T(k * signum(float64(d)))
		case lossMSE:
			dst[i] = T(k * float64(d))
		}
	}
}

// signum returns -1, 0 or 1 as PyTorch's torch.sign; NaN for NaN.
func signum(d float64) float64 {
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return d * 0 // ±0 → 0, NaN → NaN
}

// softplusSum returns Σ softplus(sign·x) in float64.
func softplusSum[T compute.Float](x []T, sign float64) float64 {
	var s float64
	for _, v := range x {
		s += softplus(sign * float64(v))
	}
	return s
}

// softplusGrad sets dst[i] to k·sigmoid(sign·x[i]).
func softplusGrad[T compute.Float](dst, x []T, sign, k float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = T(k * sigmoid(sign*float64(v)))
	}
}

// softplus returns log(1+exp(x)) = max(x,0) + log1p(exp(-|x|)), exact to
// rounding for every finite x.
func softplus(x float64) float64 {
	return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
}

func addRowDot[T compute.Float](dst, s, h, e []T, rows, n int) {
	for r := 0; r < rows; r++ {
		var acc float64
		for j := r * n; j < (r+1)*n; j++ {
			acc += float64(float64(h[j]) * float64(e[j]))
		}
		dst[r] = s[r] + T(acc)
	}
}

func mulRows[T compute.Float](dst, x, g []T, rows, n int) {
	for r := 0; r < rows; r++ {
		for j := r * n; j < (r+1)*n; j++ {
			dst[j] = g[r] * x[j]
		}
	}
}
