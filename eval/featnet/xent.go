package featnet

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// softmaxXent returns the per-sample cross-entropy, shape (batch), of the
// softmax of logits (batch, K) against target distributions (batch, K):
// logsumexp(z) - Σ t·z, computed with the largest logit subtracted so
// that it neither overflows nor loses the small terms. Its gradient with
// respect to the logits is (softmax(z)·Σt - t)·dy, multiplied by *scale
// (loss scaling; the forward value is not scaled). The targets are not
// differentiated.
func softmaxXent(logits, target *gorgonia.Node, scale *float64) (*gorgonia.Node, error) {
	ls, ts := logits.Shape(), target.Shape()
	if ls.Dims() != 2 || !ls.Eq(ts) {
		return nil, fmt.Errorf("featnet: cross-entropy of logits %v against targets %v: want equal (batch, classes) shapes", ls, ts)
	}
	op := &xentOp{n: ls[0], k: ls[1], scale: scale}
	n, err := gorgonia.ApplyOp(op, logits, target)
	if err != nil {
		return nil, fmt.Errorf("featnet: %v: %w", op, err)
	}
	return n, nil
}

// xentOp is the forward op; xentGradOp its gradient.
type xentOp struct {
	n, k  int
	scale *float64
}

func (o *xentOp) Arity() int            { return 2 }
func (o *xentOp) ReturnsPtr() bool      { return false }
func (o *xentOp) CallsExtern() bool     { return false }
func (o *xentOp) OverwritesInput() int  { return -1 }
func (o *xentOp) String() string        { return fmt.Sprintf("SoftmaxXent(%dx%d,%p)", o.n, o.k, o.scale) }
func (o *xentOp) WriteHash(h hash.Hash) { fmt.Fprint(h, o.String()) }
func (o *xentOp) Hashcode() uint32      { return hashOf(o) }

func (o *xentOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	m := &gorgonia.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(m, m, &gorgonia.TensorType{Dims: 1, Of: a})
}

func (o *xentOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.n}, nil
}

func (o *xentOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	z, t, err := denses2(o, vals, o.n, o.k)
	if err != nil {
		return nil, err
	}
	y := tensor.New(tensor.Of(z.Dtype()), tensor.WithShape(o.n))
	switch zd := z.Data().(type) {
	case []float32:
		xentForward(y.Data().([]float32), zd, t.Data().([]float32), o.k)
	case []float64:
		xentForward(y.Data().([]float64), zd, t.Data().([]float64), o.k)
	}
	return y, nil
}

func (o *xentOp) DiffWRT(int) []bool { return []bool{true, false} }

func (o *xentOp) SymDiff(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	g := &xentGradOp{xentOp: *o}
	dz, err := gorgonia.ApplyOp(g, inputs[0], inputs[1], grad)
	if err != nil {
		return nil, fmt.Errorf("featnet: %v: %w", g, err)
	}
	return gorgonia.Nodes{dz, nil}, nil
}

type xentGradOp struct{ xentOp }

func (o *xentGradOp) Arity() int            { return 3 }
func (o *xentGradOp) String() string        { return o.xentOp.String() + ".grad" }
func (o *xentGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, o.String()) }
func (o *xentGradOp) Hashcode() uint32      { return hashOf(o) }

func (o *xentGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	m := &gorgonia.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(m, m, &gorgonia.TensorType{Dims: 1, Of: a}, m)
}

func (o *xentGradOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.n, o.k}, nil
}

func (o *xentGradOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != 3 {
		return nil, fmt.Errorf("featnet: %v: %d inputs, want 3", o, len(vals))
	}
	z, t, err := denses2(o, vals[:2], o.n, o.k)
	if err != nil {
		return nil, err
	}
	dy, ok := vals[2].(*tensor.Dense)
	if !ok || dy.Dtype() != z.Dtype() || dy.Size() != o.n {
		return nil, fmt.Errorf("featnet: %v: gradient is %v, want %d values of %v", o, vals[2], o.n, z.Dtype())
	}
	dz := tensor.New(tensor.Of(z.Dtype()), tensor.WithShape(o.n, o.k))
	s := 1.0
	if o.scale != nil {
		s = *o.scale
	}
	switch zd := z.Data().(type) {
	case []float32:
		xentBackward(dz.Data().([]float32), zd, t.Data().([]float32), dy.Data().([]float32), o.k, float32(s))
	case []float64:
		xentBackward(dz.Data().([]float64), zd, t.Data().([]float64), dy.Data().([]float64), o.k, s)
	}
	return dz, nil
}

// denses2 checks and returns the two (n, k) inputs of op.
func denses2(op fmt.Stringer, vals []gorgonia.Value, n, k int) (z, t *tensor.Dense, err error) {
	if len(vals) != 2 {
		return nil, nil, fmt.Errorf("featnet: %v: %d inputs, want 2", op, len(vals))
	}
	var ds [2]*tensor.Dense
	for i, v := range vals {
		d, ok := v.(*tensor.Dense)
		if !ok || (d.Dtype() != tensor.Float32 && d.Dtype() != tensor.Float64) || !d.Shape().Eq(tensor.Shape{n, k}) ||
			!d.IsNativelyAccessible() || d.RequiresIterator() {
			return nil, nil, fmt.Errorf("featnet: %v: input %d is %v, want a contiguous (%d, %d) float tensor", op, i, v, n, k)
		}
		ds[i] = d
	}
	if ds[0].Dtype() != ds[1].Dtype() {
		return nil, nil, fmt.Errorf("featnet: %v: inputs of types %v and %v", op, ds[0].Dtype(), ds[1].Dtype())
	}
	return ds[0], ds[1], nil
}

func hashOf(o interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}
