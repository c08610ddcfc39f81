package models

import (
	"fmt"
	"github.com/positgan/positgan/internal/graphop"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The custom-op plumbing lives in internal/graphop.
type (
	funcOp = graphop.Func
	diffOp = graphop.Diff
	outBuf = graphop.OutBuf
)

func apply(op gorgonia.Op, children ...*gorgonia.Node) (*gorgonia.Node, error) {
	n, err := gorgonia.ApplyOp(op, children...)
	if err != nil {
		return nil, fmt.Errorf("models: %v: %w", op, err)
	}
	return n, nil
}

// backNode adds a node computing one input's gradient from the inputs
// (deps) of the backward pass: do receives their values and a reusable
// output tensor of the given shape.
func backNode(name string, shape tensor.Shape, deps []*gorgonia.Node, do func(out *tensor.Dense, in []*tensor.Dense)) (*gorgonia.Node, error) {
	var buf outBuf
	in := make([]tensor.Shape, len(deps))
	for i, d := range deps {
		in[i] = d.Shape().Clone()
	}
	op := &funcOp{Name: name, In: in, Out: shape.Clone(), Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
		out := buf.Get(in[0].Dtype(), shape)
		do(out, in)
		return out, nil
	}}
	return apply(op, deps...)
}

type float interface{ ~float32 | ~float64 }

func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}
