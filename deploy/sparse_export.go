package deploy

import (
	"fmt"
	"slices"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/sparsity"
)

// Sparsify stores the weights of the quantized layers N:M sparse (pattern
// p) along each layer's reduction axes (ReductionAxes): in every block of
// M consecutive weights of a dot product the N of largest |w| are kept
// (ties to the lower index), as the float32 checkpoint holds them, and the
// others are set to zero before rounding to the weight format (Mask). The
// model runs the dense network on these masked weights. layers, if not
// nil, picks the layers ("G/fc1") to sparsify; a dense p changes nothing.
func Sparsify(p sparsity.Pattern, layers func(layer string) bool) Option {
	return func(o *options) {
		o.sparse = func(layer string) sparsity.Pattern {
			if layers != nil && !layers(layer) {
				return sparsity.Pattern{}
			}
			return p
		}
	}
}

// sparseWeights returns the sparsity Export gives the weights w (shape
// shape) of the layer, from the policy's mask wm (nil: none) or the
// Sparsify option, and the weights masked to it; it records the sparsity
// in the layer's metadata.
func sparseWeights(o options, wm *nn.WeightMask, layers []Layer, layer string, shape []int, w []float32) (Sparsity, []float32, error) {
	var p sparsity.Pattern
	if o.sparse != nil {
		p = o.sparse(layer)
	}
	if wm != nil && !wm.Spec().Weight.IsDense() {
		if !p.IsDense() {
			return Sparsity{}, nil, fmt.Errorf("deploy: layer %s: sparsity %v from the policy and %v from Sparsify", layer, wm.Spec().Weight, p)
		}
		s, err := sparsityOf(wm.Spec().Weight, layers, layer, shape)
		if err != nil {
			return s, nil, err
		}
		// The mask the layer's products use: its scorer's now, or frozen.
		keep := make([]bool, len(w))
		wm.Mask(keep, w, nil)
		return s, sparsity.Apply(make([]float32, len(w)), w, keep), nil
	}
	s, err := sparsityOf(p, layers, layer, shape)
	if err != nil || s.Dense() {
		return s, w, err
	}
	return s, Mask(s, shape, w), nil
}

// sparsityOf returns the Sparsity of pattern p for the weights (shape
// shape) of the layer and records it in the layer's metadata.
func sparsityOf(p sparsity.Pattern, layers []Layer, layer string, shape []int) (Sparsity, error) {
	if err := p.Validate(); err != nil {
		return Sparsity{}, fmt.Errorf("deploy: layer %s: %w", layer, err)
	}
	if p.IsDense() {
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
	s := Sparsity{N: p.N, M: p.M, From: from, To: to}
	if err := s.valid(shape); err != nil {
		return Sparsity{}, fmt.Errorf("deploy: layer %s: %w", layer, err)
	}
	layers[i].Sparsity = s.String()
	return s, nil
}

// Mask returns a copy of the values of a tensor of the shape with all but
// the N largest |x| of every block of s set to zero (+0), as
// sparsity.Mask chooses them with the abs scorer: of equal |x| the lower
// index is kept, and NaN scores lowest.
func Mask(s Sparsity, shape []int, values []float32) []float32 {
	outer, k, inner := s.layout(shape)
	p := sparsity.Pattern{N: s.N, M: s.M}
	keep := make([]bool, len(values))
	out := make([]float32, len(values))
	// Each outer slice is a k × inner matrix reduced along its columns
	// (inner == 1: one row of k, reduced along the row).
	for o := range outer {
		w, kp := values[o*k*inner:(o+1)*k*inner], keep[o*k*inner:(o+1)*k*inner]
		if inner == 1 {
			sparsity.MaskValues(kp, w, 1, k, p, sparsity.AlongRow, sparsity.Abs, sparsity.Key{}, nil)
		} else {
			sparsity.MaskValues(kp, w, k, inner, p, sparsity.AlongColumn, sparsity.Abs, sparsity.Key{}, nil)
		}
	}
	return sparsity.Apply(out, values, keep)
}
