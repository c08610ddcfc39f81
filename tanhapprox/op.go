package tanhapprox

import (
	"errors"
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphop"
)

// Grad selects the backward pass of an approximation op.
type Grad uint8

const (
	// GradAtOutput multiplies the incoming gradient by the exact
	// function's derivative written in terms of its output and evaluated
	// at the approximate output y: 1-y² for tanh, y(1-y) for the sigmoid.
	// This is what the research uses; it is the default.
	GradAtOutput Grad = iota
	// GradPiecewise uses the approximation's own derivative (the slope of
	// the piece). Only piecewise-linear approximations (Sloper) have it:
	// the bitwise functions are staircases whose derivative is 0.
	GradPiecewise
	// GradExact uses the exact function's derivative at the input x.
	GradExact
)

func (g Grad) String() string {
	switch g {
	case GradAtOutput:
		return "at-output"
	case GradPiecewise:
		return "piecewise"
	case GradExact:
		return "exact"
	}
	return fmt.Sprintf("Grad(%d)", uint8(g))
}

// ParseGrad parses "at-output", "piecewise" or "exact".
func ParseGrad(s string) (Grad, error) {
	for _, g := range []Grad{GradAtOutput, GradPiecewise, GradExact} {
		if g.String() == s {
			return g, nil
		}
	}
	return 0, fmt.Errorf("tanhapprox: unknown gradient %q (want at-output, piecewise or exact)", s)
}

// Activation returns the node a(x), the approximation applied elementwise
// to x, a float32 or float64 tensor node: use it in place of gorgonia.Tanh
// or gorgonia.Sigmoid. Float32 tensors go through a.Apply, float64 ones
// through a.At. g selects the backward pass; GradPiecewise needs an
// approximation with a Slope (Sloper).
func Activation(x *gorgonia.Node, a Approx, g Grad) (*gorgonia.Node, error) {
	if a == nil {
		return nil, errors.New("tanhapprox: nil approximation")
	}
	switch g {
	case GradAtOutput, GradExact:
	case GradPiecewise:
		if _, ok := a.(Sloper); !ok {
			return nil, fmt.Errorf("tanhapprox: %v has no piecewise derivative (use at-output or exact)", a)
		}
	default:
		return nil, fmt.Errorf("tanhapprox: unknown gradient %v", g)
	}
	return gorgonia.ApplyOp(activationOp(a, g, x.Shape()), x)
}

// activationOp is the forward op, y = a(x), for inputs of the given
// shape. Its name, and so its hash, holds a and g: the String of an
// Approx spells out its parameters.
func activationOp(a Approx, g Grad, shape tensor.Shape) *graphop.Diff {
	op := &graphop.Diff{
		Func: graphop.Func{
			Name: fmt.Sprintf("tanhapprox.Activation(%v, grad=%v)", a, g),
			In:   []tensor.Shape{shape.Clone()},
			Out:  shape.Clone(),
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				// A new tensor every run: callers may keep the value of
				// a network's output across runs.
				x := in[0]
				y := tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(x.Shape().Clone()...))
				if x.Dtype() == tensor.Float32 {
					a.Apply(y.Float32s(), x.Float32s())
					return y, nil
				}
				dst := y.Float64s()
				for i, v := range x.Float64s() {
					dst[i] = a.At(v)
				}
				return y, nil
			},
			CopyViews: true,
		},
		WRT: []bool{true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		dx, err := gorgonia.ApplyOp(gradOp(a, g, shape), inputs[0], output, grad)
		if err != nil {
			return nil, err
		}
		return gorgonia.Nodes{dx}, nil
	}
	return op
}

// gradOp is the backward op, dx = dy · d(x, y), of inputs x, y and dy of
// the given shape.
//
// It says every input is differentiable, so that Gorgonia's analysis
// accepts a graph holding it when Grad is called again; its gradient then
// fails, so a second derivative through it fails loudly instead of being
// silently treated as zero.
func gradOp(a Approx, g Grad, shape tensor.Shape) *graphop.Diff {
	name := fmt.Sprintf("tanhapprox.ActivationGrad(%v, grad=%v)", a, g)
	// deriv is the factor the incoming gradient is multiplied by.
	deriv := func(x, y float64) float64 {
		switch g {
		case GradPiecewise:
			return a.(Sloper).Slope(x)
		case GradExact:
			return Exact{a.Func()}.Slope(x)
		}
		return a.Func().DerivAtOutput(y)
	}
	op := &graphop.Diff{
		Func: graphop.Func{
			Name: name,
			In:   []tensor.Shape{shape.Clone(), shape.Clone(), shape.Clone()},
			Out:  shape.Clone(),
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				x, y, dy := in[0], in[1], in[2]
				if x.Dtype() != y.Dtype() || x.Dtype() != dy.Dtype() {
					return nil, fmt.Errorf("%s: inputs differ in element type", name)
				}
				dx := tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(x.Shape().Clone()...))
				if x.Dtype() == tensor.Float32 {
					xs, ys, dys, dxs := x.Float32s(), y.Float32s(), dy.Float32s(), dx.Float32s()
					for i := range dxs {
						dxs[i] = dys[i] * float32(deriv(float64(xs[i]), float64(ys[i])))
					}
					return dx, nil
				}
				xs, ys, dys, dxs := x.Float64s(), y.Float64s(), dy.Float64s(), dx.Float64s()
				for i := range dxs {
					dxs[i] = dys[i] * deriv(xs[i], ys[i])
				}
				return dx, nil
			},
			CopyViews: true,
		},
		WRT: []bool{true, true, true},
	}
	op.Grad = func(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
		return nil, fmt.Errorf("%s: second derivatives are not supported", name)
	}
	return op
}
