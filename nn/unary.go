package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// unary adds a one-input op to x's graph: fwd fills y from x, bwd fills
// dx from the output gradient dy. Both write every element of their
// result. name must hold every parameter, and the identity of any state
// bwd reads besides dy.
func unary(x *gorgonia.Node, name string, yShape tensor.Shape, fwd func(x, y *tensor.Dense), bwd func(dy, dx *tensor.Dense)) (*gorgonia.Node, error) {
	xShape := x.Shape().Clone()
	var yBuf, dxBuf outBuf
	op := &diffOp{
		Func: funcOp{
			Name: fmt.Sprintf("%s%v", name, xShape),
			In:   []tensor.Shape{xShape},
			Out:  yShape.Clone(),
			Buf:  &yBuf,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				y := yBuf.Get(in[0].Dtype(), yShape)
				fwd(in[0], y)
				return y, nil
			},
		},
		WRT: []bool{true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		bop := &funcOp{
			Name: op.Name + ".grad",
			In:   []tensor.Shape{yShape.Clone()},
			Out:  xShape,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				dx := dxBuf.Get(in[0].Dtype(), xShape)
				bwd(in[0], dx)
				return dx, nil
			},
		}
		n, err := apply(bop, grad)
		return gorgonia.Nodes{n}, err
	}
	return apply(op, x)
}

func check4D(x *gorgonia.Node, what string) (tensor.Shape, error) {
	s := x.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("nn: %s: input shape %v, want (batch, channels, H, W)", what, s)
	}
	return s.Clone(), nil
}
