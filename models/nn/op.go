package nn

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"github.com/positgan/positgan/internal/gemm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// funcOp is a Gorgonia op whose output shape is fixed when the graph is
// built and whose work is a closure over the op's state. name must hold
// every parameter of the op and, for ops with state, the identity of that
// state: Gorgonia merges nodes with equal hashes and children.
type funcOp struct {
	name  string
	in    []tensor.Shape // input shapes, for the type
	shape tensor.Shape   // output shape
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

// Type is a → b → ... → out with every tensor of one element type.
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
		return nil, fmt.Errorf("nn: %s: %d inputs, want %d", o.name, len(vals), len(o.in))
	}
	ins := make([]*tensor.Dense, len(vals))
	for i, v := range vals {
		d, ok := v.(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("nn: %s: input %d is a %T, want a *tensor.Dense", o.name, i, v)
		}
		if dt := d.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
			return nil, fmt.Errorf("nn: %s: input %d has element type %v, want float32 or float64", o.name, i, dt)
		}
		if !d.Shape().Eq(o.in[i]) {
			return nil, fmt.Errorf("nn: %s: input %d has shape %v, want %v", o.name, i, d.Shape(), o.in[i])
		}
		if !d.IsNativelyAccessible() || d.RequiresIterator() {
			return nil, fmt.Errorf("nn: %s: input %d is not a contiguous tensor", o.name, i)
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

// data returns the backing slice of a float32 or float64 tensor.
func data[T gemm.Float](d *tensor.Dense) []T { return d.Data().([]T) }

// grow returns a slice of length n, reusing buf's storage when it can.
func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}

// outBuf keeps one output tensor per element type and hands it out again
// while the shape is the same, so that a node allocates its result once.
type outBuf struct {
	t32, t64 *tensor.Dense
}

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

func isF64(d *tensor.Dense) bool { return d.Dtype() == tensor.Float64 }

// apply adds op to x's graph applied to children.
func apply(op gorgonia.Op, children ...*gorgonia.Node) (*gorgonia.Node, error) {
	n, err := gorgonia.ApplyOp(op, children...)
	if err != nil {
		return nil, fmt.Errorf("nn: %v: %w", op, err)
	}
	return n, nil
}

func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}
