package tanhapprox

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
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
	return gorgonia.ApplyOp(&approxOp{a: a, grad: g}, x)
}

// approxOp is the forward op: y = a(x).
type approxOp struct {
	a    Approx
	grad Grad
}

func (op *approxOp) Arity() int { return 1 }

func (op *approxOp) Type() hm.Type {
	t := hm.TypeVariable('a')
	return hm.NewFnType(t, t)
}

func (op *approxOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return shapeOf(in)
}

func (op *approxOp) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("tanhapprox: %v takes 1 input, got %d", op, len(in))
	}
	x, err := dense(in[0])
	if err != nil {
		return nil, err
	}
	y := tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(x.Shape().Clone()...))
	switch x.Dtype() {
	case tensor.Float32:
		op.a.Apply(y.Float32s(), x.Float32s())
	case tensor.Float64:
		dst, src := y.Float64s(), x.Float64s()
		for i, v := range src {
			dst[i] = op.a.At(v)
		}
	default:
		return nil, fmt.Errorf("tanhapprox: %v: unsupported dtype %v (want float32 or float64)", op, x.Dtype())
	}
	return y, nil
}

func (op *approxOp) ReturnsPtr() bool     { return false }
func (op *approxOp) CallsExtern() bool    { return false }
func (op *approxOp) OverwritesInput() int { return -1 }
func (op *approxOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "tanhapprox.Activation(%v,grad=%v)", op.a, op.grad)
}
func (op *approxOp) Hashcode() uint32 { return hashOf(op) }
func (op *approxOp) String() string {
	return fmt.Sprintf("Activation(%v, grad=%v)", op.a, op.grad)
}

func (op *approxOp) DiffWRT(inputs int) []bool { return []bool{true} }

func (op *approxOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("tanhapprox: %v takes 1 input, got %d", op, len(inputs))
	}
	dx, err := gorgonia.ApplyOp(&gradOp{a: op.a, grad: op.grad}, inputs[0], output, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx}, nil
}

// gradOp is the backward op: dx = dy · d(x, y).
type gradOp struct {
	a    Approx
	grad Grad
}

func (op *gradOp) Arity() int { return 3 }

func (op *gradOp) Type() hm.Type {
	t := hm.TypeVariable('a')
	return hm.NewFnType(t, t, t, t)
}

func (op *gradOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return shapeOf(in)
}

func (op *gradOp) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("tanhapprox: %v takes 3 inputs, got %d", op, len(in))
	}
	var t [3]*tensor.Dense
	for i := range t {
		d, err := dense(in[i])
		if err != nil {
			return nil, err
		}
		t[i] = d
	}
	x, y, dy := t[0], t[1], t[2]
	if x.Dtype() != y.Dtype() || x.Dtype() != dy.Dtype() || !x.Shape().Eq(y.Shape()) || !x.Shape().Eq(dy.Shape()) {
		return nil, fmt.Errorf("tanhapprox: %v: inputs differ in dtype or shape", op)
	}
	dx := tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(x.Shape().Clone()...))
	switch x.Dtype() {
	case tensor.Float32:
		xs, ys, dys, dxs := x.Float32s(), y.Float32s(), dy.Float32s(), dx.Float32s()
		for i := range dxs {
			dxs[i] = dys[i] * float32(op.deriv(float64(xs[i]), float64(ys[i])))
		}
	case tensor.Float64:
		xs, ys, dys, dxs := x.Float64s(), y.Float64s(), dy.Float64s(), dx.Float64s()
		for i := range dxs {
			dxs[i] = dys[i] * op.deriv(xs[i], ys[i])
		}
	default:
		return nil, fmt.Errorf("tanhapprox: %v: unsupported dtype %v (want float32 or float64)", op, x.Dtype())
	}
	return dx, nil
}

// deriv is the factor the incoming gradient is multiplied by.
func (op *gradOp) deriv(x, y float64) float64 {
	switch op.grad {
	case GradPiecewise:
		return op.a.(Sloper).Slope(x)
	case GradExact:
		return Exact{op.a.Func()}.Slope(x)
	}
	return op.a.Func().DerivAtOutput(y)
}

func (op *gradOp) ReturnsPtr() bool     { return false }
func (op *gradOp) CallsExtern() bool    { return false }
func (op *gradOp) OverwritesInput() int { return -1 }
func (op *gradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "tanhapprox.ActivationGrad(%v,grad=%v)", op.a, op.grad)
}
func (op *gradOp) Hashcode() uint32 { return hashOf(op) }
func (op *gradOp) String() string {
	return fmt.Sprintf("ActivationGrad(%v, grad=%v)", op.a, op.grad)
}

// DiffWRT says every input is differentiable, so that Gorgonia's analysis
// accepts a graph holding this op when Grad is called again; SymDiff then
// refuses, so a second derivative through it fails loudly instead of being
// silently treated as zero.
func (op *gradOp) DiffWRT(inputs int) []bool { return []bool{true, true, true} }

// SymDiff reports that second derivatives are not supported.
func (op *gradOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, fmt.Errorf("tanhapprox: %v: second derivatives are not supported", op)
}

func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func shapeOf(in []gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) == 0 || in[0] == nil {
		return nil, errors.New("tanhapprox: no input shape")
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("tanhapprox: input shape is a %T, not a tensor.Shape", in[0])
	}
	return s.Clone(), nil
}

// dense returns v as a contiguous *tensor.Dense (a view is copied).
func dense(v gorgonia.Value) (*tensor.Dense, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("tanhapprox: input is a %T, want a *tensor.Dense", v)
	}
	if d.IsView() {
		m, ok := d.Materialize().(*tensor.Dense)
		if !ok {
			return nil, errors.New("tanhapprox: cannot materialize a view")
		}
		d = m
	}
	return d, nil
}
