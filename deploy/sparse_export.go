package deploy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Sparsify stores the weights of every quantized layer N:M sparse along
// the layer's reduction axes (ReductionAxes): in every block of M
// consecutive weights of a dot product the N of largest |w| are kept
// (ties to the lower index), as the float32 checkpoint holds them, and the
// others are set to zero before rounding to the weight format (Mask). The
// model then runs the dense network on these masked weights. layers, if
// not nil, picks the layers ("G/fc1") to sparsify.
func Sparsify(n, m int, layers func(layer string) bool) Option {
	return func(o *options) {
		o.sparse = func(layer string) (int, int) {
			if layers != nil && !layers(layer) {
				return 0, 0
			}
			return n, m
		}
	}
}

// sparsityOf returns the sparsity Export gives the weights of the layer
// (shape shape) and records it in the layer's metadata.
func sparsityOf(o options, layers []Layer, layer string, shape []int) (Sparsity, error) {
	if o.sparse == nil {
		return Sparsity{}, nil
	}
	n, m := o.sparse(layer)
	if n == 0 && m == 0 {
		return Sparsity{}, nil
	}
	i := slices.IndexFunc(layers, func(l Layer) bool { return l.Name == layer })
	if i < 0 {
		return Sparsity{}, fmt.Errorf("deploy: sparsity for %s, which is not a quantized layer", layer)
	}
	from, to, ok := ReductionAxes(layers[i].Kind)
	if !ok {
		return Sparsity{}, fmt.Errorf("deploy: layer %s: no reduction axes for a %s layer", layer, layers[i].Kind)
	}
	s := Sparsity{N: n, M: m, From: from, To: to}
	if err := s.valid(shape); err != nil {
		return Sparsity{}, fmt.Errorf("deploy: layer %s: %w", layer, err)
	}
	layers[i].Sparsity = s.String()
	return s, nil
}

// Mask returns a copy of the values of a tensor of the shape with all but
// the N largest |x| of every block of s set to zero (+0); of equal |x| the
// lower index is kept. A NaN counts as the largest.
func Mask(s Sparsity, shape []int, values []float32) []float32 {
	outer, k, inner := s.layout(shape)
	out := make([]float32, len(values))
	pos := make([]int, 0, s.M)
	for o := range outer {
		for i := range inner {
			for b := 0; b < k; b += s.M {
				at := func(j int) int { return (o*k+b+j)*inner + i }
				pos = pos[:0]
				for j := range min(s.M, k-b) {
					pos = append(pos, j)
				}
				// Stable: equal scores keep their index order.
				slices.SortStableFunc(pos, func(p, q int) int {
					return cmp.Compare(score(values[at(q)]), score(values[at(p)]))
				})
				for _, j := range pos[:min(s.N, len(pos))] {
					out[at(j)] = values[at(j)]
				}
			}
		}
	}
	return out
}

func score(x float32) float64 {
	if x != x {
		return math.Inf(1)
	}
	return math.Abs(float64(x))
}
