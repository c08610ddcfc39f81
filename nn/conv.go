package nn

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/sparsity"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Conv2d is a 2-D convolution over NCHW inputs with a square kernel,
// quantized operands and one stride and padding for both axes. W has shape
// (OutC, InC, K, K), as in PyTorch.
type Conv2d struct {
	InC, OutC, K, Stride, Pad int
	// W and B are the parameter nodes; B is nil without a bias.
	W, B  *gorgonia.Node
	name  string
	roles *roles
}

// NewConv2d returns a Conv2d layer in g with formats f.
func NewConv2d(g *gorgonia.ExprGraph, name string, inC, outC, k, stride, pad int, f LayerFormats, opts ...Option) (*Conv2d, error) {
	if inC <= 0 || outC <= 0 || k <= 0 || stride <= 0 || pad < 0 {
		return nil, fmt.Errorf("nn: conv2d %s: bad sizes: %d→%d channels, kernel %d, stride %d, pad %d", name, inC, outC, k, stride, pad)
	}
	if err := f.checkDot(); err != nil {
		return nil, fmt.Errorf("nn: conv2d %s: %w", name, err)
	}
	o := buildOptions(opts)
	w, b := initWeights(o, []int{outC, inC, k, k}, inC*k*k, outC)
	c := &Conv2d{InC: inC, OutC: outC, K: k, Stride: stride, Pad: pad, name: name, roles: newRoles(f, o.seed)}
	var err error
	if c.roles.mask, err = newWeightMask(name, f.Sparsity, outC, inC*k*k, sparsity.AlongRow); err != nil {
		return nil, fmt.Errorf("nn: conv2d %s: %w", name, err)
	}
	c.W, c.B = newParams(g, w, b, name)
	return c, nil
}

// Share returns a copy of c in graph g whose parameter nodes hold the same
// tensors.
func (c *Conv2d) Share(g *gorgonia.ExprGraph) *Conv2d {
	d := *c
	d.W, d.B = shareParams(g, c.W, c.B, c.name)
	return &d
}

// Params returns the learnable nodes: W, then B if present.
func (c *Conv2d) Params() gorgonia.Nodes { return params(c.W, c.B) }

// newParams returns a layer's parameter nodes in g: name.w holding w and,
// if b is not nil, name.b holding b.
func newParams(g *gorgonia.ExprGraph, w, b *tensor.Dense, name string) (W, B *gorgonia.Node) {
	W = paramNode(g, w, name+".w")
	if b != nil {
		B = paramNode(g, b, name+".b")
	}
	return W, B
}

// shareParams returns nodes in g holding the tensors of the nodes w and b.
func shareParams(g *gorgonia.ExprGraph, w, b *gorgonia.Node, name string) (*gorgonia.Node, *gorgonia.Node) {
	var bt *tensor.Dense
	if b != nil {
		bt = b.Value().(*tensor.Dense)
	}
	return newParams(g, w.Value().(*tensor.Dense), bt, name)
}

// ConvTranspose2d is the transpose (gradient) of a Conv2d with the same
// kernel, stride and padding, as PyTorch's ConvTranspose2d: an H×W input
// gives a ((H-1)·Stride - 2·Pad + K + OutPad) square-kernel output. W has
// shape (InC, OutC, K, K).
type ConvTranspose2d struct {
	InC, OutC, K, Stride, Pad, OutPad int
	W, B                              *gorgonia.Node
	name                              string
	roles                             *roles
}

// NewConvTranspose2d returns a ConvTranspose2d layer in g with formats f.
// outPad must be less than stride.
func NewConvTranspose2d(g *gorgonia.ExprGraph, name string, inC, outC, k, stride, pad, outPad int, f LayerFormats, opts ...Option) (*ConvTranspose2d, error) {
	if inC <= 0 || outC <= 0 || k <= 0 || stride <= 0 || pad < 0 || outPad < 0 || outPad >= stride {
		return nil, fmt.Errorf("nn: convtranspose2d %s: bad sizes: %d→%d channels, kernel %d, stride %d, pad %d, output pad %d",
			name, inC, outC, k, stride, pad, outPad)
	}
	if err := f.checkDot(); err != nil {
		return nil, fmt.Errorf("nn: convtranspose2d %s: %w", name, err)
	}
	o := buildOptions(opts)
	w, b := initWeights(o, []int{inC, outC, k, k}, outC*k*k, outC)
	c := &ConvTranspose2d{InC: inC, OutC: outC, K: k, Stride: stride, Pad: pad, OutPad: outPad, name: name, roles: newRoles(f, o.seed)}
	// The forward product col = Wᵀ·X sums over InC: down the columns of
	// the (InC, OutC·K·K) weights.
	var err error
	if c.roles.mask, err = newWeightMask(name, f.Sparsity, inC, outC*k*k, sparsity.AlongColumn); err != nil {
		return nil, fmt.Errorf("nn: convtranspose2d %s: %w", name, err)
	}
	c.W, c.B = newParams(g, w, b, name)
	return c, nil
}

// Share returns a copy of c in graph g whose parameter nodes hold the same
// tensors.
func (c *ConvTranspose2d) Share(g *gorgonia.ExprGraph) *ConvTranspose2d {
	d := *c
	d.W, d.B = shareParams(g, c.W, c.B, c.name)
	return &d
}

// Params returns the learnable nodes: W, then B if present.
func (c *ConvTranspose2d) Params() gorgonia.Nodes { return params(c.W, c.B) }

// convBufs are the working buffers of one convolution node.
type convBufs[T compute.Float] struct {
	xq, wq, col, yt, dyq, dcol, dxt []T
	wOwn                            []T          // the rounded weights, unless wq is the cache's or the tensor (wcache.go)
	blk                             blockBufs[T] // block-rounded operands (roles.go)
	gen, dyGen                      int
	// colsFused: the products that read the column matrix (col for
	// Conv2d, dcol for ConvTranspose2d) pack it from the images instead
	// (fuseCols), so it is not built, and col or dcol holds the images,
	// padded (compute.PadImages); set by the forward kernel (Conv2d) or
	// convDY (ConvTranspose2d).
	colsFused bool
	rd        wRead // the weights the forward read (wcache.go)
}

// convState is what a convolution node's kernels share. For Conv2d the
// geometry g maps the input image to the output grid; for ConvTranspose2d
// it maps the output image to the input grid (the transposed layer runs
// the convolution backwards).
type convState struct {
	name          string
	transposed    bool
	roles         *roles
	g             compute.Geom
	batch         int
	inC, outC     int
	xShape        tensor.Shape
	yShape        tensor.Shape
	b32           convBufs[float32]
	b64           convBufs[float64]
	y, dx, dw, db outBuf
	mask          *maskNode // the weights' N:M mask (sparse.go), or nil
	// lend: a graph node (node) whose gradient symDiff has not built, so
	// that no kernel reads the forward's working buffers after it: they
	// are borrowed (conv_scratch.go). Kernels called directly never lend.
	lend bool
	band int // output rows per band when lending (0: bandRows chooses); set by tests
}

// Fwd returns the convolution of x (batch, InC, H, W), computed by one
// fused op.
func (c *Conv2d) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) {
	what := "conv2d " + c.name
	xs := x.Shape()
	if xs.Dims() != 4 || xs[1] != c.InC {
		return nil, fmt.Errorf("nn: %s: input shape %v, want (batch, %d, H, W)", what, xs, c.InC)
	}
	g, err := compute.ConvGeom(c.InC, xs[2], xs[3], c.K, c.K, c.Stride, c.Pad)
	if err != nil {
		return nil, fmt.Errorf("nn: %s: %w", what, err)
	}
	st := &convState{name: c.name, roles: c.roles, g: g, batch: xs[0], inC: c.InC, outC: c.OutC,
		xShape: xs.Clone(), yShape: tensor.Shape{xs[0], c.OutC, g.OH, g.OW}}
	return st.node(x, c.W, c.B, what)
}

// Fwd returns the transposed convolution of x (batch, InC, H, W), computed
// by one fused op.
func (c *ConvTranspose2d) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) {
	what := "convtranspose2d " + c.name
	xs := x.Shape()
	if xs.Dims() != 4 || xs[1] != c.InC {
		return nil, fmt.Errorf("nn: %s: input shape %v, want (batch, %d, H, W)", what, xs, c.InC)
	}
	oh := (xs[2]-1)*c.Stride - 2*c.Pad + c.K + c.OutPad
	ow := (xs[3]-1)*c.Stride - 2*c.Pad + c.K + c.OutPad
	g, err := compute.ConvGeom(c.OutC, oh, ow, c.K, c.K, c.Stride, c.Pad)
	if err != nil || g.OH != xs[2] || g.OW != xs[3] {
		return nil, fmt.Errorf("nn: %s: input %dx%d gives no valid %dx%d output", what, xs[2], xs[3], oh, ow)
	}
	st := &convState{name: c.name, transposed: true, roles: c.roles, g: g, batch: xs[0], inC: c.InC, outC: c.OutC,
		xShape: xs.Clone(), yShape: tensor.Shape{xs[0], c.OutC, oh, ow}}
	return st.node(x, c.W, c.B, what)
}

func (st *convState) node(x, w, b *gorgonia.Node, what string) (*gorgonia.Node, error) {
	st.lend = true // until symDiff builds the gradient
	if err := checkDtype(x, w.Dtype(), what); err != nil {
		return nil, err
	}
	w, mask, err := maskWeight(w, st.roles.mask)
	st.mask = mask
	if err != nil {
		return nil, err
	}
	in := []tensor.Shape{st.xShape, w.Shape().Clone()}
	children := []*gorgonia.Node{x, w}
	if b != nil {
		in = append(in, b.Shape().Clone())
		children = append(children, b)
	}
	op := &diffOp{
		Func: funcOp{
			Name: fmt.Sprintf("%s[%p](%+v, %v)", what, st, st.g, st.roles.f),
			In:   in,
			Out:  st.yShape,
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

func (st *convState) forward(in []*tensor.Dense) (*tensor.Dense, error) {
	y := st.y.Get(in[0].Dtype(), st.yShape)
	if st.lend {
		defer st.giveBack(st.borrow())
	}
	var b *tensor.Dense
	if len(in) == 3 {
		b = in[2]
	}
	switch {
	case isF64(y) && st.transposed:
		convTForward(st, &st.b64, in[0], in[1], b, y)
	case isF64(y):
		convForward(st, &st.b64, in[0], in[1], b, y)
	case st.transposed:
		convTForward(st, &st.b32, in[0], in[1], b, y)
	default:
		convForward(st, &st.b32, in[0], in[1], b, y)
	}
	return y, nil
}

func (st *convState) symDiff(op *diffOp, inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	st.lend = false
	mk := func(what string, shape tensor.Shape, do func(dy, out *tensor.Dense)) (*gorgonia.Node, error) {
		var buf outBuf
		bop := &funcOp{
			Name: op.Name + "." + what,
			In:   []tensor.Shape{output.Shape().Clone(), grad.Shape().Clone()},
			Out:  shape.Clone(),
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				out := buf.Get(in[1].Dtype(), shape)
				do(in[1], out)
				return out, nil
			},
		}
		return apply(bop, output, grad)
	}
	res := make(gorgonia.Nodes, len(inputs))
	var err error
	if res[0], err = mk("dx", st.xShape, st.backX); err != nil {
		return nil, err
	}
	if res[1], err = mk("dw", inputs[1].Shape(), st.backW); err != nil {
		return nil, err
	}
	if len(inputs) == 3 {
		if res[2], err = mk("db", inputs[2].Shape(), st.backB); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (st *convState) backX(dy, dx *tensor.Dense) {
	switch {
	case isF64(dy) && st.transposed:
		convTBackX(st, &st.b64, dy, dx)
	case isF64(dy):
		convBackX(st, &st.b64, dy, dx)
	case st.transposed:
		convTBackX(st, &st.b32, dy, dx)
	default:
		convBackX(st, &st.b32, dy, dx)
	}
}

func (st *convState) backW(dy, dw *tensor.Dense) {
	switch {
	case isF64(dy) && st.transposed:
		convTBackW(st, &st.b64, dy, dw)
	case isF64(dy):
		convBackW(st, &st.b64, dy, dw)
	case st.transposed:
		convTBackW(st, &st.b32, dy, dw)
	default:
		convBackW(st, &st.b32, dy, dw)
	}
	st.mask.maskGrad(dw)
}

func (st *convState) backB(dy, db *tensor.Dense) {
	// The bias gradient sums the rounded incoming gradient: a (C, B·P)
	// matrix for Conv2d, a (B, C, P) tensor for ConvTranspose2d.
	n, inner := 1, st.batch*st.yShape[2]*st.yShape[3]
	if st.transposed {
		n, inner = st.batch, st.yShape[2]*st.yShape[3]
	}
	if isF64(dy) {
		sumRows(st.roles, convDY(st, &st.b64, dy), data[float64](db), n, inner)
	} else {
		sumRows(st.roles, convDY(st, &st.b32, dy), data[float32](db), n, inner)
	}
}
