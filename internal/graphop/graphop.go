// Package graphop is the plumbing of positgan's custom Gorgonia ops: an op
// whose shapes are fixed when the graph is built and whose work is a Go
// function over dense tensors, with an optional symbolic gradient.
//
// Gorgonia merges nodes whose ops hash alike and whose children agree, so
// an op's Name must spell out every parameter and, for ops with state, the
// identity of that state.
package graphop

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Func is a Gorgonia op computing Fn from its inputs. Inputs must be
// contiguous float32 or float64 tensors (or scalars) of the shapes In; the
// output has shape Out. It never writes into its inputs.
//
// Name is the op's String and its hash: it must spell out every
// parameter that changes the result.
type Func struct {
	Name string
	In   []tensor.Shape
	Out  tensor.Shape
	Fn   func(in []*tensor.Dense) (*tensor.Dense, error)
	// CopyViews lets inputs be views that are not contiguous (what
	// gorgonia.Slice or a transpose may give in a graph built by a
	// caller): Do hands Fn contiguous copies of them. Without it such an
	// input is an error, so that an op on the training path never copies
	// its inputs unnoticed.
	CopyViews bool

	ins     []*tensor.Dense // Do's, reused
	scalars []*tensor.Dense // scalar inputs as tensors, by input, reused
}

// scalar returns the scalar tensor of element type dt that stands for
// input i when it is a Gorgonia scalar (the seed of a loss's gradient).
func (o *Func) scalar(i int, dt tensor.Dtype) *tensor.Dense {
	if len(o.scalars) != len(o.In) {
		o.scalars = make([]*tensor.Dense, len(o.In))
	}
	if d := o.scalars[i]; d != nil && d.Dtype() == dt {
		return d
	}
	d := tensor.New(tensor.FromScalar(float32(0)))
	if dt == tensor.Float64 {
		d = tensor.New(tensor.FromScalar(float64(0)))
	}
	o.scalars[i] = d
	return d
}

func (o *Func) Arity() int            { return len(o.In) }
func (o *Func) ReturnsPtr() bool      { return false }
func (o *Func) CallsExtern() bool     { return false }
func (o *Func) OverwritesInput() int  { return -1 }
func (o *Func) WriteHash(h hash.Hash) { fmt.Fprint(h, o.Name) }
func (o *Func) String() string        { return o.Name }

func (o *Func) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

// Type is a → b → ... → out with every tensor of one element type.
func (o *Func) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(o.In)+1)
	for _, s := range o.In {
		ts = append(ts, tensorType(s.Dims(), a))
	}
	ts = append(ts, tensorType(o.Out.Dims(), a))
	return hm.NewFnType(ts...)
}

func tensorType(dims int, a hm.TypeVariable) hm.Type {
	if dims == 0 {
		return a
	}
	return &gorgonia.TensorType{Dims: dims, Of: a}
}

func (o *Func) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return o.Out.Clone(), nil
}

// Do checks the inputs and calls Fn.
func (o *Func) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != len(o.In) {
		return nil, fmt.Errorf("%s: %d inputs, want %d", o.Name, len(vals), len(o.In))
	}
	// The inputs' slice is kept for the next run: an op runs once at a
	// time, and Fn must not keep it.
	if len(o.ins) != len(vals) {
		o.ins = make([]*tensor.Dense, len(vals))
	}
	ins := o.ins
	for i, v := range vals {
		switch s := v.(type) {
		case *gorgonia.F32:
			d := o.scalar(i, tensor.Float32)
			d.Float32s()[0] = float32(*s)
			v = d
		case *gorgonia.F64:
			d := o.scalar(i, tensor.Float64)
			d.Float64s()[0] = float64(*s)
			v = d
		}
		d, ok := v.(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("%s: input %d is a %T, want a *tensor.Dense", o.Name, i, v)
		}
		if dt := d.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
			return nil, fmt.Errorf("%s: input %d has element type %v, want float32 or float64", o.Name, i, dt)
		}
		if !d.Shape().Eq(o.In[i]) {
			return nil, fmt.Errorf("%s: input %d has shape %v, want %v", o.Name, i, d.Shape(), o.In[i])
		}
		if !d.IsNativelyAccessible() || d.RequiresIterator() {
			if !o.CopyViews {
				return nil, fmt.Errorf("%s: input %d is not a contiguous tensor", o.Name, i)
			}
			m, ok := d.Materialize().(*tensor.Dense)
			if !ok {
				return nil, fmt.Errorf("%s: input %d: cannot copy a view", o.Name, i)
			}
			d = m
		}
		ins[i] = d
	}
	return o.Fn(ins)
}

// Diff is a Func with a symbolic gradient: Grad returns the gradient
// nodes of the inputs WRT marks.
type Diff struct {
	Func
	WRT  []bool
	Grad func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error)
}

func (o *Diff) DiffWRT(int) []bool { return o.WRT }

func (o *Diff) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	return o.Grad(inputs, output, grad)
}

// OutBuf keeps one output tensor per element type and hands it out again
// while the shape is the same, so that a node allocates its result once.
type OutBuf struct {
	t32, t64 *tensor.Dense
}

// Get returns the buffer for element type dt and shape.
func (o *OutBuf) Get(dt tensor.Dtype, shape tensor.Shape) *tensor.Dense {
	p := &o.t32
	if dt == tensor.Float64 {
		p = &o.t64
	}
	if *p == nil || !(*p).Shape().Eq(shape) {
		*p = tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...))
	}
	return *p
}

// Float32s returns the values of a float32 value: a tensor's backing
// slice, or a scalar's value as a new one-value slice. Value.Data would
// box a tensor's slice through reflection, an allocation per call.
func Float32s(v gorgonia.Value) []float32 {
	switch d := v.(type) {
	case *tensor.Dense:
		if d.Dtype() == tensor.Float32 {
			return d.Float32s()
		}
	case *gorgonia.F32:
		return []float32{float32(*d)}
	}
	panic(fmt.Sprintf("graphop: a %v %T where float32 values are wanted", v.Dtype(), v))
}
