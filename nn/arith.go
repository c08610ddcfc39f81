package nn

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// Add returns a + b element by element, for a and b of the same shape: the
// skip connection of a residual block. It does what gorgonia.Add does,
// into a buffer kept from run to run and never in place; the gradient of
// each input is a copy of the output gradient.
func Add(a, b *gorgonia.Node) (*gorgonia.Node, error) {
	as, bs := a.Shape(), b.Shape()
	if !as.Eq(bs) {
		return nil, fmt.Errorf("nn: add: shapes %v and %v differ", as, bs)
	}
	shape := as.Clone()
	var fwd outBuf
	name := fmt.Sprintf("Add%v", shape)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{shape, shape}, Out: shape, Buf: &fwd, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := fwd.Get(in[0].Dtype(), shape)
			if isF64(y) {
				compute.Add(data[float64](y), data[float64](in[0]), data[float64](in[1]))
			} else {
				compute.Add(data[float32](y), data[float32](in[0]), data[float32](in[1]))
			}
			return y, nil
		}},
		WRT: []bool{true, true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		// Two distinct nodes (Gorgonia would merge equal ones), so that
		// neither input's gradient is the other's.
		res := make(gorgonia.Nodes, 2)
		for i, what := range []string{"da", "db"} {
			d, err := kernelNode(name+"."+what, shape, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				if isF64(out) {
					copy(data[float64](out), data[float64](in[0]))
				} else {
					copy(data[float32](out), data[float32](in[0]))
				}
			})
			if err != nil {
				return nil, err
			}
			res[i] = d
		}
		return res, nil
	}
	return apply(op, a, b)
}

// Scale returns x·k, ESRGAN's residual scaling (k = 0.2). It does what
// gorgonia.Mul with a scalar constant does, into a buffer kept from run to
// run; with float32 data the product is x·float32(k), as PyTorch's
// x * k computes it. The gradient is dy·k.
func Scale(x *gorgonia.Node, k float64) (*gorgonia.Node, error) {
	if math.IsNaN(k) || math.IsInf(k, 0) {
		return nil, fmt.Errorf("nn: scale: factor %v", k)
	}
	mul := func(src, dst *tensor.Dense) {
		if isF64(src) {
			compute.Scale(data[float64](dst), data[float64](src), k)
		} else {
			compute.Scale(data[float32](dst), data[float32](src), float32(k))
		}
	}
	return unary(x, fmt.Sprintf("Scale(%v)", k), x.Shape(),
		func(x, y *tensor.Dense) { mul(x, y) },
		func(dy, dx *tensor.Dense) { mul(dy, dx) })
}

// kernelNode adds a node computing do(out, values of deps) into an output
// buffer of the given shape kept from run to run (the element type is
// that of the first dependency). It has no gradient: it is for the
// gradient nodes of other ops.
func kernelNode(name string, shape tensor.Shape, deps []*gorgonia.Node, do func(out *tensor.Dense, in []*tensor.Dense)) (*gorgonia.Node, error) {
	var buf outBuf
	in := make([]tensor.Shape, len(deps))
	for i, d := range deps {
		in[i] = d.Shape().Clone()
	}
	shape = shape.Clone()
	op := &funcOp{Name: name, In: in, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
		out := buf.Get(in[0].Dtype(), shape)
		do(out, in)
		return out, nil
	}}
	return apply(op, deps...)
}
