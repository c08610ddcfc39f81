package nn

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/sparsity"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Linear is a fully connected layer y = x·Wᵀ + b with quantized operands.
// W has shape (Out, In), as in PyTorch; an input of shape (B, ...) is
// flattened to (B, In).
type Linear struct {
	In, Out int
	// W and B are the parameter nodes in the layer's graph; B is nil
	// without a bias. Their values are shared by every copy made with In.
	W, B  *gorgonia.Node
	name  string
	roles *roles
}

// NewLinear returns a Linear layer in g with formats f.
func NewLinear(g *gorgonia.ExprGraph, name string, in, out int, f LayerFormats, opts ...Option) (*Linear, error) {
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("nn: linear %s: sizes %d→%d must be positive", name, in, out)
	}
	if err := f.checkDot(); err != nil {
		return nil, fmt.Errorf("nn: linear %s: %w", name, err)
	}
	o := buildOptions(opts)
	w, b := initWeights(o, []int{out, in}, in, out)
	l := &Linear{In: in, Out: out, name: name, roles: newRoles(f, o.seed)}
	var err error
	if l.roles.mask, err = newWeightMask(name, f.Sparsity, out, in, sparsity.AlongRow); err != nil {
		return nil, fmt.Errorf("nn: linear %s: %w", name, err)
	}
	l.W, l.B = newParams(g, w, b, name)
	return l, nil
}

// Share returns a copy of l in graph g whose parameter nodes hold the same
// tensors: an update through either graph is seen by both (the two-graph
// GAN pattern).
func (l *Linear) Share(g *gorgonia.ExprGraph) *Linear {
	c := *l
	c.W = paramNode(g, l.W.Value().(*tensor.Dense), l.name+".w")
	if l.B != nil {
		c.B = paramNode(g, l.B.Value().(*tensor.Dense), l.name+".b")
	}
	return &c
}

// Params returns the learnable nodes: W, then B if present.
func (l *Linear) Params() gorgonia.Nodes { return params(l.W, l.B) }

func params(w, b *gorgonia.Node) gorgonia.Nodes {
	if b == nil {
		return gorgonia.Nodes{w}
	}
	return gorgonia.Nodes{w, b}
}

// linBufs are the working buffers of one Linear node for element type T.
type linBufs[T compute.Float] struct {
	xq, wq, dyq []T
	// wOwn holds the rounded weights unless the layer's cache does
	// (wcache.go); without a weight format wq is the weight tensor
	// itself, which nothing changes between a forward and its backward
	// (the optimiser runs after both), so copying it would only cost
	// memory traffic.
	wOwn       []T
	blk        blockBufs[T] // block-rounded operands (roles.go)
	gen, dyGen int          // forward runs; the run dyq was rounded in
	rd         wRead        // the weights the forward read (wcache.go)
	fj         fwdJob[T]    // the forward's rounding of the weights and product
	bj         backWJob[T]  // the weight gradient's product and rounding
}

// linState is what a Linear node's forward and backward kernels share.
type linState struct {
	l             *Linear
	batch         int
	xShape        tensor.Shape
	b32           linBufs[float32]
	b64           linBufs[float64]
	y, dx, dw, db outBuf
	mask          *maskNode // the weights' N:M mask (sparse.go), or nil
}

// Fwd returns the node x·Wᵀ + b, computed by one fused op.
func (l *Linear) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) {
	xs := x.Shape()
	if xs.Dims() < 2 || prod(xs[1:]) != l.In {
		return nil, fmt.Errorf("nn: linear %s: input shape %v, want (batch, %d)", l.name, xs, l.In)
	}
	if err := checkDtype(x, l.W.Dtype(), "linear "+l.name); err != nil {
		return nil, err
	}
	st := &linState{l: l, batch: xs[0], xShape: xs.Clone()}
	in := []tensor.Shape{xs.Clone(), l.W.Shape().Clone()}
	w, mask, err := maskWeight(l.W, l.roles.mask)
	st.mask = mask
	if err != nil {
		return nil, err
	}
	children := []*gorgonia.Node{x, w}
	if l.B != nil {
		in = append(in, l.B.Shape().Clone())
		children = append(children, l.B)
	}
	op := &diffOp{
		Func: funcOp{
			Name: fmt.Sprintf("Linear[%s %p](%d→%d, %v)", l.name, st, l.In, l.Out, l.roles.f),
			In:   in,
			Out:  tensor.Shape{xs[0], l.Out},
			Buf:  &st.y,
			Fn:   st.forward,
		},
		WRT: []bool{true, true, true}[:len(in)],
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		return st.symDiff(op, inputs, output, grad)
	}
	return apply(op, children...)
}

func (st *linState) forward(in []*tensor.Dense) (*tensor.Dense, error) {
	y := st.y.Get(in[0].Dtype(), tensor.Shape{st.batch, st.l.Out})
	var b *tensor.Dense
	if len(in) == 3 {
		b = in[2]
	}
	if isF64(in[0]) {
		linForward(st, &st.b64, in[0], in[1], b, y)
	} else {
		linForward(st, &st.b32, in[0], in[1], b, y)
	}
	return y, nil
}

func (st *linState) roles() *roles { return st.l.roles }

func (st *linState) symDiff(op *diffOp, inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	mk := func(what string, shape tensor.Shape, do func(dy *tensor.Dense) *tensor.Dense) (*gorgonia.Node, error) {
		bop := &funcOp{
			Name: fmt.Sprintf("%s.%s", op.Name, what),
			In:   []tensor.Shape{output.Shape().Clone(), grad.Shape().Clone()},
			Out:  shape.Clone(),
			Fn:   func(in []*tensor.Dense) (*tensor.Dense, error) { return do(in[1]), nil },
		}
		return apply(bop, output, grad)
	}
	dx, err := mk("dx", st.xShape, st.backX)
	if err != nil {
		return nil, err
	}
	dw, err := mk("dw", inputs[1].Shape(), st.backW)
	if err != nil {
		return nil, err
	}
	res := gorgonia.Nodes{dx, dw}
	if len(inputs) == 3 {
		db, err := mk("db", inputs[2].Shape(), st.backB)
		if err != nil {
			return nil, err
		}
		res = append(res, db)
	}
	return res, nil
}

func (st *linState) backX(dy *tensor.Dense) *tensor.Dense {
	dx := st.dx.Get(dy.Dtype(), st.xShape)
	if isF64(dy) {
		linBackX(st, &st.b64, dy, dx)
	} else {
		linBackX(st, &st.b32, dy, dx)
	}
	return dx
}

func (st *linState) backW(dy *tensor.Dense) *tensor.Dense {
	dw := st.dw.Get(dy.Dtype(), tensor.Shape{st.l.Out, st.l.In})
	if isF64(dy) {
		linBackW(st, &st.b64, dy, dw)
	} else {
		linBackW(st, &st.b32, dy, dw)
	}
	st.mask.maskGrad(dw)
	return dw
}

func (st *linState) backB(dy *tensor.Dense) *tensor.Dense {
	db := st.db.Get(dy.Dtype(), tensor.Shape{st.l.Out})
	if isF64(dy) {
		sumRows(st.roles(), linDY(st, &st.b64, dy), data[float64](db), st.batch, 1)
	} else {
		sumRows(st.roles(), linDY(st, &st.b32, dy), data[float32](db), st.batch, 1)
	}
	return db
}
