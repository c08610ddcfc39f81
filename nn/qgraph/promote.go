package qgraph

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/nn"
)

// Where two tensors meet outside a dot product, Add, Sub and Concat give
// the result the format of the layer's Other role, p.For(layer).Other,
// both ways (forward value, gradient coming back); when the policy leaves
// it unnamed (neither a format nor "none": nn.LayerFormats.OtherNone) and
// the inputs are in different known formats (nn.FormatOf), the promotion
// of their formats (quant.Promote, among the built-in formats and the
// policy's, settled by its prefer list). So a format the policy names
// wins, and a policy that names none keeps every value the inputs had.

// Add returns a + b (gorgonia.Add) with the result's format chosen as
// above.
func Add(p nn.Policy, layer string, a, b *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	return meet(p, layer, "add", gorgonia.Add, a, b, opts)
}

// Sub returns a - b (gorgonia.Sub) with the result's format chosen as
// above.
func Sub(p nn.Policy, layer string, a, b *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	return meet(p, layer, "sub", gorgonia.Sub, a, b, opts)
}

// Concat returns the nodes concatenated along axis (gorgonia.Concat).
// Every value of the result is a value of one input, so a promoted
// concatenation rounds nothing: its node, rounded to the promoted format
// forward and passing the gradient straight through, only records the
// format for the ops downstream (nn.FormatOf). A format the policy names
// rounds both ways, as for Add.
func Concat(p nn.Policy, layer string, axis int, ns []*gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	y, err := gorgonia.Concat(axis, ns...)
	if err != nil {
		return nil, fmt.Errorf("qgraph: layer %s, concat: %w", layer, err)
	}
	return promoteResult(p, layer, "concat", y, ns, opts, true)
}

// meet applies the element-wise op f to a and b and rounds the result.
func meet(p nn.Policy, layer, role string, f func(a, b *gorgonia.Node) (*gorgonia.Node, error),
	a, b *gorgonia.Node, opts []Option) (*gorgonia.Node, error) {
	y, err := f(a, b)
	if err != nil {
		return nil, fmt.Errorf("qgraph: layer %s, %s: %w", layer, role, err)
	}
	return promoteResult(p, layer, role, y, []*gorgonia.Node{a, b}, opts, false)
}

// promoteResult rounds y, the result of an op of the inputs ins, to the
// layer's Other format or, unnamed, to the inputs' promotion; with
// exact (the promoted values are all representable already), the
// promotion's gradient passes straight through.
func promoteResult(p nn.Policy, layer, role string, y *gorgonia.Node, ins []*gorgonia.Node, opts []Option, exact bool) (*gorgonia.Node, error) {
	lf := nn.FormatsOf(p, layer)
	c := newConfig(opts)
	switch {
	case !lf.Other.IsZero():
		return quantizeRole(&c, layer, role, y, lf.Other, lf.Other)
	case lf.OtherNone:
		return y, nil
	}
	f, err := nn.Promotion(lf.Promoter, ins...)
	if err != nil {
		return nil, fmt.Errorf("qgraph: layer %s, %s: %w; name its Other format in the policy", layer, role, err)
	}
	if f == nil {
		return y, nil
	}
	q := nn.Quantizer{Format: f}
	bwd := q
	if exact {
		bwd = nn.Quantizer{}
	}
	return quantizeRole(&c, layer, role, y, q, bwd)
}
