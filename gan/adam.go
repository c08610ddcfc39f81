package gan

import (
	"fmt"
	"math"
)

// Adam is the Adam optimiser (Kingma and Ba, ICLR 2015) over a fixed list
// of float32 parameter tensors. Its state (the moments M, V and the step
// count T) is plain data, so a checkpoint can save and restore it exactly.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	T                     int         // updates applied so far
	M, V                  [][]float32 // first and second moments, one per parameter
}

// NewAdam returns Adam for parameters of the given sizes with the usual
// GAN settings of DCGAN: learning rate 2e-4, β1 0.5, β2 0.999, ε 1e-8.
func NewAdam(sizes []int) *Adam {
	a := &Adam{LR: 2e-4, Beta1: 0.5, Beta2: 0.999, Eps: 1e-8}
	for _, n := range sizes {
		a.M = append(a.M, make([]float32, n))
		a.V = append(a.V, make([]float32, n))
	}
	return a
}

// Step applies one update to params from grads, which are the true
// gradients times gradScale (loss scaling): they are divided by it first.
// It panics if the lengths do not match the sizes Adam was built for.
func (a *Adam) Step(params, grads [][]float32, gradScale float64) {
	if len(params) != len(a.M) || len(grads) != len(a.M) {
		panic(fmt.Sprintf("gan: adam: %d parameters and %d gradients for %d tensors", len(params), len(grads), len(a.M)))
	}
	a.T++
	inv := float32(1 / gradScale)
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	// Bias corrections folded into the step size, as PyTorch does.
	c1 := 1 - math.Pow(a.Beta1, float64(a.T))
	c2 := 1 - math.Pow(a.Beta2, float64(a.T))
	lr := float32(a.LR / c1)
	sc2 := float32(math.Sqrt(c2))
	eps := float32(a.Eps)
	for i, p := range params {
		g, m, v := grads[i], a.M[i], a.V[i]
		if len(g) != len(p) || len(m) != len(p) {
			panic(fmt.Sprintf("gan: adam: tensor %d has %d values, gradient %d, state %d", i, len(p), len(g), len(m)))
		}
		adamKernel(p, g, m, v, inv, b1, b2, lr, sc2, eps)
	}
}
