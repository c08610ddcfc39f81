package models

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// funcOp is a Gorgonia op with shapes fixed when the graph is built and
// its work done by a closure. name must identify the op and its state:
// Gorgonia merges nodes whose ops hash alike and whose children agree.
type funcOp struct {
	name  string
	in    []tensor.Shape
	shape tensor.Shape
	do    func(in []*tensor.Dense) (*tensor.Dense, error)
}

func (o *funcOp) Arity() int            { return len(o.in) }
func (o *funcOp) ReturnsPtr() bool      { return false }
func (o *funcOp) CallsExtern() bool     { return false }
func (o *funcOp) OverwritesInput() int  { return -1 }
func (o *funcOp) WriteHash(h hash.Hash) { fmt.Fprint(h, o.name) }
func (o *funcOp) String() string        { return o.name }

func (o *funcOp) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

func (o *funcOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(o.in)+1)
	for _, s := range o.in {
		ts = append(ts, tensorType(s.Dims(), a))
	}
	ts = append(ts, tensorType(o.shape.Dims(), a))
	return hm.NewFnType(ts...)
}

func tensorType(dims int, a hm.TypeVariable) hm.Type {
	if dims == 0 {
		return a
	}
	return &gorgonia.TensorType{Dims: dims, Of: a}
}

func (o *funcOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return o.shape.Clone(), nil
}

func (o *funcOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != len(o.in) {
		return nil, fmt.Errorf("models: %s: %d inputs, want %d", o.name, len(vals), len(o.in))
	}
	ins := make([]*tensor.Dense, len(vals))
	for i, v := range vals {
		switch s := v.(type) {
		case *gorgonia.F32:
			v = tensor.New(tensor.FromScalar(float32(*s)))
		case *gorgonia.F64:
			v = tensor.New(tensor.FromScalar(float64(*s)))
		}
		d, ok := v.(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("models: %s: input %d is a %T, want a *tensor.Dense", o.name, i, v)
		}
		if dt := d.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
			return nil, fmt.Errorf("models: %s: input %d has element type %v, want float32 or float64", o.name, i, dt)
		}
		if !d.Shape().Eq(o.in[i]) {
			return nil, fmt.Errorf("models: %s: input %d has shape %v, want %v", o.name, i, d.Shape(), o.in[i])
		}
		ins[i] = d
	}
	return o.do(ins)
}

// diffOp is a funcOp with a symbolic gradient.
type diffOp struct {
	funcOp
	wrt     []bool
	symDiff func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error)
}

func (o *diffOp) DiffWRT(int) []bool { return o.wrt }

func (o *diffOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	return o.symDiff(inputs, output, grad)
}

// outBuf keeps a node's output tensor from run to run.
type outBuf struct{ t32, t64 *tensor.Dense }

func (o *outBuf) get(dt tensor.Dtype, shape tensor.Shape) *tensor.Dense {
	p := &o.t32
	if dt == tensor.Float64 {
		p = &o.t64
	}
	if *p == nil || !(*p).Shape().Eq(shape) {
		*p = tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...))
	}
	return *p
}

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
	op := &funcOp{name: name, in: in, shape: shape.Clone(), do: func(in []*tensor.Dense) (*tensor.Dense, error) {
		out := buf.get(in[0].Dtype(), shape)
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
