package nn

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// RectConv2d is a Conv2d whose kernel is KH×KW and whose padding is PH
// rows and PW columns, PyTorch's Conv2d with kernel_size=(KH, KW) and
// padding=(PH, PW), as Inception-v3's 1×7 and 7×1 convolutions are. It
// runs Conv2d's fused op, with the same quantized operands. W has shape
// (OutC, InC, KH, KW).
type RectConv2d struct {
	InC, OutC, KH, KW, Stride, PH, PW int
	// W and B are the parameter nodes; B is nil without a bias.
	W, B  *gorgonia.Node
	name  string
	roles *roles
}

// NewRectConv2d returns a RectConv2d layer in g with formats f.
func NewRectConv2d(g *gorgonia.ExprGraph, name string, inC, outC, kh, kw, stride, ph, pw int, f LayerFormats, opts ...Option) (*RectConv2d, error) {
	if inC <= 0 || outC <= 0 || kh <= 0 || kw <= 0 || stride <= 0 || ph < 0 || pw < 0 {
		return nil, fmt.Errorf("nn: conv2d %s: bad sizes: %d→%d channels, kernel %dx%d, stride %d, pad %dx%d", name, inC, outC, kh, kw, stride, ph, pw)
	}
	if err := f.checkDot(); err != nil {
		return nil, fmt.Errorf("nn: conv2d %s: %w", name, err)
	}
	o := buildOptions(opts)
	w, b := initWeights(o, []int{outC, inC, kh, kw}, inC*kh*kw, outC)
	c := &RectConv2d{InC: inC, OutC: outC, KH: kh, KW: kw, Stride: stride, PH: ph, PW: pw, name: name, roles: newRoles(f, o.seed)}
	c.W, c.B = newParams(g, w, b, name)
	return c, nil
}

// Params returns the learnable nodes: W, then B if present.
func (c *RectConv2d) Params() gorgonia.Nodes { return params(c.W, c.B) }

// Fwd returns the convolution of x (batch, InC, H, W), computed by one
// fused op.
func (c *RectConv2d) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) {
	what := "conv2d " + c.name
	xs := x.Shape()
	if xs.Dims() != 4 || xs[1] != c.InC {
		return nil, fmt.Errorf("nn: %s: input shape %v, want (batch, %d, H, W)", what, xs, c.InC)
	}
	h, w := xs[2], xs[3]
	if h+2*c.PH < c.KH || w+2*c.PW < c.KW {
		return nil, fmt.Errorf("nn: %s: kernel %dx%d larger than padded image %dx%d", what, c.KH, c.KW, h+2*c.PH, w+2*c.PW)
	}
	g := compute.Geom{C: c.InC, H: h, W: w, KH: c.KH, KW: c.KW, SH: c.Stride, SW: c.Stride, PH: c.PH, PW: c.PW,
		OH: (h+2*c.PH-c.KH)/c.Stride + 1, OW: (w+2*c.PW-c.KW)/c.Stride + 1}
	st := &convState{name: c.name, roles: c.roles, g: g, batch: xs[0], inC: c.InC, outC: c.OutC,
		xShape: xs.Clone(), yShape: tensor.Shape{xs[0], c.OutC, g.OH, g.OW}}
	return st.node(x, c.W, c.B, what)
}

// Share returns a copy of c in graph g whose parameter nodes hold the same
// tensors.
func (c *RectConv2d) Share(g *gorgonia.ExprGraph) *RectConv2d {
	d := *c
	d.W, d.B = shareParams(g, c.W, c.B, c.name)
	return &d
}
