// Package graphop is the plumbing of positgan's custom Gorgonia ops, whose
// work is a Go function over dense tensors: Func, an op whose shapes are
// fixed when the graph is built, Diff, a Func with a symbolic gradient,
// and Map, a one-input op whose output has its input's shape, whatever
// the rank, written into a buffer the op keeps. Such a buffer (OutBuf) can
// be lent on through a Pool once its result is dead, in an inference
// program (graphexec's Recycle): the op is then a Releaser. The buffers
// of several ops can be placed in one Arena (a dense block's chain of
// concatenations), which such a program lends out as a whole.
//
// Gorgonia merges nodes whose ops hash alike and whose children agree, so
// an op's hash (its Name, or its Key when set) must spell out every
// parameter and, for ops with state, the identity of that state.
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
// parameter that changes the result, unless Key does.
type Func struct {
	Name string
	// Key, if set, is the op's hash in place of Name: for an op whose
	// String is a short label, it spells out every parameter and the
	// identity of any state the op shares.
	Key string
	In  []tensor.Shape
	Out tensor.Shape
	Fn  func(in []*tensor.Dense) (*tensor.Dense, error)
	// CopyViews lets inputs be views that are not contiguous (what
	// gorgonia.Slice or a transpose may give in a graph built by a
	// caller): Do hands Fn contiguous copies of them. Without it such an
	// input is an error, so that an op on the training path never copies
	// its inputs unnoticed.
	CopyViews bool
	// ScalarOut makes Do hand the result, of shape (), back as a
	// Gorgonia scalar (*gorgonia.F32 or *gorgonia.F64) rather than a
	// 0-dimensional tensor: Gorgonia's scalar-scalar ops (gorgonia.Add
	// and Mul of two losses, or of a loss and a constant) accept only
	// those. The op keeps the scalar and hands it out again at every run.
	ScalarOut bool
	// Buf, if set, is the buffer Fn returns its result in, always: the
	// op is then a Releaser, whose buffer an inference program lends to
	// later ops once the result has been read for the last time.
	Buf *OutBuf

	ins     []*tensor.Dense // Do's, reused
	scalars []*tensor.Dense // scalar inputs as tensors, by input, reused
	f32     gorgonia.F32    // ScalarOut's results
	f64     gorgonia.F64
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
func (o *Func) WriteHash(h hash.Hash) { writeHash(h, o.Name, o.Key) }
func (o *Func) Hashcode() uint32      { return hashcode(o.Name, o.Key) }
func (o *Func) String() string        { return o.Name }

// writeHash writes an op's hash: key, or name when key is empty.
func writeHash(h hash.Hash, name, key string) {
	if key == "" {
		key = name
	}
	fmt.Fprint(h, key)
}

func hashcode(name, key string) uint32 {
	h := fnv.New32a()
	writeHash(h, name, key)
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
	y, err := o.Fn(ins)
	if err != nil || !o.ScalarOut {
		return y, err
	}
	return o.scalarOut(y)
}

// scalarOut returns the value of the 1-element tensor y as the op's
// Gorgonia scalar.
func (o *Func) scalarOut(y *tensor.Dense) (gorgonia.Value, error) {
	if y.Size() != 1 {
		return nil, fmt.Errorf("%s: result of shape %v is not a scalar", o.Name, y.Shape())
	}
	switch y.Dtype() {
	case tensor.Float64:
		o.f64 = gorgonia.F64(y.Float64s()[0])
		return &o.f64, nil
	case tensor.Float32:
		o.f32 = gorgonia.F32(y.Float32s()[0])
		return &o.f32, nil
	}
	return nil, fmt.Errorf("%s: result of element type %v is not a float scalar", o.Name, y.Dtype())
}

// OwnsOutput reports whether the op has a Buf and hands out its result
// as a tensor (see Releaser).
func (o *Func) OwnsOutput() bool { return o.Buf != nil && !o.ScalarOut }

// ReleaseOutput gives Buf to p (see Releaser).
func (o *Func) ReleaseOutput(p *Pool) {
	if !o.OwnsOutput() {
		panic("graphop: " + o.Name + ": releasing the output of an op that does not own it")
	}
	o.Buf.Release(p)
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

// Map is a one-input op whose output has its input's shape and element
// type, whatever the rank (a scalar too), and lives in a buffer the op
// keeps from run to run: once warm, a run allocates nothing. Fn writes
// dst from src; src is a contiguous float32 or float64 tensor (a view
// that is not contiguous is copied first, a Gorgonia scalar is put in a
// 0-dimensional tensor the op keeps), and Fn must not write into it.
//
// Name is the op's String and its hash: it must spell out every
// parameter that changes the result, unless Key (as Func's) does. Grad,
// if set, returns the gradient node of the input, given the input, the
// output and the output's gradient; without it the op has none.
type Map struct {
	Name string
	Key  string
	Fn   func(dst, src *tensor.Dense) error
	Grad func(x, y, dy *gorgonia.Node) (*gorgonia.Node, error)

	in, out OutBuf // a scalar input as a tensor; the result
}

func (o *Map) Arity() int            { return 1 }
func (o *Map) ReturnsPtr() bool      { return false }
func (o *Map) CallsExtern() bool     { return false }
func (o *Map) OverwritesInput() int  { return -1 }
func (o *Map) WriteHash(h hash.Hash) { writeHash(h, o.Name, o.Key) }
func (o *Map) Hashcode() uint32      { return hashcode(o.Name, o.Key) }
func (o *Map) String() string        { return o.Name }

// Type is a → a: a tensor of any rank, or a scalar, to the same.
func (o *Map) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}

// InferShape returns the input's shape.
func (o *Map) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("%s: %d inputs, want 1", o.Name, len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("%s: input shape %v is not a tensor.Shape", o.Name, in[0])
	}
	return s.Clone(), nil
}

// Do calls Fn with the op's output buffer for the input's element type
// and shape, and returns that buffer.
func (o *Map) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("%s: %d inputs, want 1", o.Name, len(vals))
	}
	var x *tensor.Dense
	switch v := vals[0].(type) {
	case *tensor.Dense:
		x = v
	case *gorgonia.F32:
		x = o.in.Get(tensor.Float32, tensor.ScalarShape())
		x.Float32s()[0] = float32(*v)
	case *gorgonia.F64:
		x = o.in.Get(tensor.Float64, tensor.ScalarShape())
		x.Float64s()[0] = float64(*v)
	default:
		return nil, fmt.Errorf("%s: input is a %T, want a float32 or float64 tensor", o.Name, vals[0])
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("%s: input has element type %v, want float32 or float64", o.Name, dt)
	}
	if !x.IsNativelyAccessible() || x.RequiresIterator() {
		m, ok := x.Materialize().(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("%s: cannot copy a view", o.Name)
		}
		x = m
	}
	y := o.out.Get(x.Dtype(), x.Shape())
	if err := o.Fn(y, x); err != nil {
		return nil, err
	}
	return y, nil
}

// OwnsOutput reports true: a Map's result is always its buffer.
func (o *Map) OwnsOutput() bool { return true }

// ReleaseOutput gives the op's output buffer to p (see Releaser).
func (o *Map) ReleaseOutput(p *Pool) { o.out.Release(p) }

// DiffWRT reports whether the op has a gradient.
func (o *Map) DiffWRT(int) []bool { return []bool{o.Grad != nil} }

func (o *Map) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if o.Grad == nil {
		return nil, fmt.Errorf("%s has no gradient", o.Name)
	}
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%s: %d inputs, want 1", o.Name, len(inputs))
	}
	dx, err := o.Grad(inputs[0], output, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx}, nil
}

// OutBuf keeps one output tensor per element type and hands it out again
// while the shape is the same, so that a node allocates its result once.
// Once released to a Pool (an inference program does so after the
// result's last reader), it takes its tensors from that pool.
type OutBuf struct {
	t32, t64 *tensor.Dense
	pool     *Pool
	slot     *slot // Place's
}

// Get returns the buffer for element type dt and shape: its place in an
// arena lent out, if it has one there of that size (Place).
func (o *OutBuf) Get(dt tensor.Dtype, shape tensor.Shape) *tensor.Dense {
	if o.slot != nil && dt == tensor.Float32 && o.slot.arena.Lent() && shape.TotalSize() == o.slot.n {
		return o.slot.get(shape)
	}
	p := &o.t32
	if dt == tensor.Float64 {
		p = &o.t64
	}
	if *p == nil || !(*p).Shape().Eq(shape) {
		if o.pool == nil {
			*p = tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...))
		} else {
			if *p != nil {
				o.pool.put(*p)
			}
			*p = o.pool.get(dt, shape)
		}
	}
	return *p
}

// Release gives the buffers to pool, from which Get takes them from now
// on. The caller must no longer read what Get returned.
func (o *OutBuf) Release(pool *Pool) {
	o.pool = pool
	for _, p := range []**tensor.Dense{&o.t32, &o.t64} {
		if *p != nil {
			pool.put(*p)
			*p = nil
		}
	}
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
