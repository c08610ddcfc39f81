package models

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BatchNorm normalises each channel of a (B, C) or (B, C, H, W) input to
// zero mean and unit variance over the batch (and the spatial positions),
// then scales by Gamma and shifts by Beta, both of shape (C).
//
// It always uses the statistics of the batch it is given, in training and
// when sampling, as the reference DCGAN code does (it never switches its
// networks to evaluation mode); there are no running statistics. It works
// in float32 (float64 for gradient checks) and is not quantized: it is not
// a dot product.
//
// Gorgonia's own BatchNorm is not used because its nil scale and bias are
// input-shaped and its running statistics are wiped when a machine is
// created (see the project's notes on Gorgonia).
type BatchNorm struct {
	C           int
	Eps         float64
	Gamma, Beta *gorgonia.Node
	name        string
}

// NewBatchNorm returns a BatchNorm of c channels in g with Gamma 1, Beta 0
// and ε 1e-5, with parameters of element type dt.
func NewBatchNorm(g *gorgonia.ExprGraph, name string, c int, dt tensor.Dtype) *BatchNorm {
	gamma := tensor.New(tensor.Of(dt), tensor.WithShape(c))
	beta := tensor.New(tensor.Of(dt), tensor.WithShape(c))
	switch d := gamma.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = 1
		}
	case []float64:
		for i := range d {
			d[i] = 1
		}
	}
	return &BatchNorm{C: c, Eps: 1e-5, name: name,
		Gamma: gorgonia.NodeFromAny(g, gamma, gorgonia.WithName(name+".gamma")),
		Beta:  gorgonia.NodeFromAny(g, beta, gorgonia.WithName(name+".beta")),
	}
}

// Share returns a copy of b in g holding the same parameter tensors.
func (b *BatchNorm) Share(g *gorgonia.ExprGraph) *BatchNorm {
	c := *b
	c.Gamma = gorgonia.NodeFromAny(g, b.Gamma.Value(), gorgonia.WithName(b.name+".gamma"))
	c.Beta = gorgonia.NodeFromAny(g, b.Beta.Value(), gorgonia.WithName(b.name+".beta"))
	return &c
}

// Params returns Gamma and Beta.
func (b *BatchNorm) Params() gorgonia.Nodes { return gorgonia.Nodes{b.Gamma, b.Beta} }

// bnState is what one BatchNorm node's forward and backward share.
type bnState struct {
	b        *BatchNorm
	batch, p int // batch size, positions per channel per sample
	xhat     []float64
	invStd   []float64
	fwd      outBuf
}

// Fwd returns the normalised x.
func (b *BatchNorm) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) {
	xs := x.Shape().Clone()
	if (xs.Dims() != 2 && xs.Dims() != 4) || xs[1] != b.C {
		return nil, fmt.Errorf("models: batchnorm %s: input shape %v, want (B, %d) or (B, %[2]d, H, W)", b.name, xs, b.C)
	}
	if x.Dtype() != b.Gamma.Dtype() {
		return nil, fmt.Errorf("models: batchnorm %s: input has element type %v, the layer %v", b.name, x.Dtype(), b.Gamma.Dtype())
	}
	st := &bnState{b: b, batch: xs[0], p: xs.TotalSize() / (xs[0] * b.C)}
	name := fmt.Sprintf("BatchNorm[%s %p]", b.name, st)
	cs := tensor.Shape{b.C}
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{xs, cs, cs}, Out: xs, Fn: st.forward},
		WRT:  []bool{true, true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		deps := []*gorgonia.Node{inputs[1], output, grad}
		dx, err := backNode(name+".dx", xs, deps, st.backX)
		if err != nil {
			return nil, err
		}
		dg, err := backNode(name+".dgamma", cs, deps, st.backGamma)
		if err != nil {
			return nil, err
		}
		db, err := backNode(name+".dbeta", cs, deps, st.backBeta)
		return gorgonia.Nodes{dx, dg, db}, err
	}
	return apply(op, x, b.Gamma, b.Beta)
}

func (st *bnState) forward(in []*tensor.Dense) (*tensor.Dense, error) {
	y := st.fwd.Get(in[0].Dtype(), in[0].Shape())
	n := in[0].Shape().TotalSize()
	if len(st.xhat) != n {
		st.xhat = make([]float64, n)
		st.invStd = make([]float64, st.b.C)
	}
	switch x := in[0].Data().(type) {
	case []float32:
		bnForward(st, y.Data().([]float32), x, in[1].Data().([]float32), in[2].Data().([]float32))
	case []float64:
		bnForward(st, y.Data().([]float64), x, in[1].Data().([]float64), in[2].Data().([]float64))
	}
	return y, nil
}

// each calls f(c, i) for every element i of channel c.
func (st *bnState) each(c int, f func(i int)) {
	C, P := st.b.C, st.p
	for b := 0; b < st.batch; b++ {
		base := (b*C + c) * P
		for i := base; i < base+P; i++ {
			f(i)
		}
	}
}

// backX: in = gamma, y, dy.
func (st *bnState) backX(out *tensor.Dense, in []*tensor.Dense) {
	switch dx := out.Data().(type) {
	case []float32:
		bnBackX(st, dx, in[0].Data().([]float32), in[2].Data().([]float32))
	case []float64:
		bnBackX(st, dx, in[0].Data().([]float64), in[2].Data().([]float64))
	}
}

func (st *bnState) backGamma(out *tensor.Dense, in []*tensor.Dense) {
	switch d := out.Data().(type) {
	case []float32:
		bnSums(st, d, in[2].Data().([]float32), true)
	case []float64:
		bnSums(st, d, in[2].Data().([]float64), true)
	}
}

func (st *bnState) backBeta(out *tensor.Dense, in []*tensor.Dense) {
	switch d := out.Data().(type) {
	case []float32:
		bnSums(st, d, in[2].Data().([]float32), false)
	case []float64:
		bnSums(st, d, in[2].Data().([]float64), false)
	}
}
