package nn

import "math"

// sigmoid returns 1/(1+exp(-x)) without overflow. The losses, whose
// kernels stay in nn, use it value by value; the Sigmoid layer's kernel
// (compute.Sigmoid) computes the same per element.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
