package models

import (
	"fmt"
	"hash/fnv"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/models/nn"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/tanhapprox"
)

// Formats returns the formats of the quantized layer with the given name
// ("G/fc1", "D/conv2", ...), usually Policy.For with exponent biases
// applied. nil means float32 everywhere.
type Formats func(layer string) quant.LayerFormats

// Param is a learnable tensor of a network.
type Param struct {
	Name  string // e.g. "G/fc1.w": unique within the GAN, the checkpoint key
	Layer string // the layer it belongs to, e.g. "G/fc1"
	// Weight is true for the weight tensor of a quantized layer (the
	// tensor whose exponent bias is chosen per layer).
	Weight bool
	// Quantized is true for the weights and bias of a quantized layer,
	// whose gradients the layer rounds to its WGrad format.
	Quantized bool
	Node      *gorgonia.Node
}

// Data returns the parameter's float32 values (its backing slice).
func (p Param) Data() []float32 { return p.Node.Value().Data().([]float32) }

// Tap records one run of a quantized layer: its input and output nodes in
// a graph, whose values after a run are the layer's activations.
type Tap struct {
	Layer   string
	In, Out *gorgonia.Node
	// Err, on copies made with CaptureErrors, holds after a run with a
	// backward pass the gradient that arrived at Out (the layer's error).
	Err *[]float32
}

// stage is one step of a sequential network.
type stage interface {
	fwd(n *Net, x *gorgonia.Node) (*gorgonia.Node, error)
	share(g *gorgonia.ExprGraph) stage
	params() []Param
}

// Net is a sequential network (a generator or a discriminator) whose
// parameters live in one graph. Share makes a copy in another graph that
// holds the same parameter tensors.
type Net struct {
	name   string // "G" or "D"
	stages []stage
	// condition: the one-hot labels are concatenated to the input of
	// every quantized layer (MLP nets).
	condition bool
	y         *gorgonia.Node // the labels of the Fwd call under way
	taps      []Tap
	capture   bool
	watch     func(layer string, dy []float32)
}

// CaptureErrors makes the quantized layers of later Fwd calls record the
// gradient arriving at their outputs in their Taps (for inspection; it
// adds a copy per layer to the backward pass).
func (n *Net) CaptureErrors() { n.capture = true }

// WatchErrors makes the quantized layers of later Fwd calls pass the
// gradient arriving at their outputs (the error, before the layer rounds
// it to its Err format) to f in every backward pass, as loss scaling
// needs to see errors that saturate. f must not keep dy.
func (n *Net) WatchErrors(f func(layer string, dy []float32)) { n.watch = f }

// Fwd adds the network applied to x (and the one-hot labels y, (B,
// classes), for a conditional network; nil otherwise) to x's graph.
func (n *Net) Fwd(x, y *gorgonia.Node) (*gorgonia.Node, error) {
	if n.condition {
		if y == nil {
			return nil, fmt.Errorf("models: %s is conditional: labels needed", n.name)
		}
		n.y = y
	}
	for _, s := range n.stages {
		var err error
		if x, err = s.fwd(n, x); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// Share returns a copy of n for graph g sharing n's parameter tensors.
func (n *Net) Share(g *gorgonia.ExprGraph) *Net {
	c := &Net{name: n.name, condition: n.condition}
	for _, s := range n.stages {
		c.stages = append(c.stages, s.share(g))
	}
	return c
}

// Params returns the learnable tensors in a fixed order.
func (n *Net) Params() []Param {
	var ps []Param
	for _, s := range n.stages {
		ps = append(ps, s.params()...)
	}
	return ps
}

// Taps returns the quantized layers' input and output nodes of every Fwd
// call on this copy so far, in order.
func (n *Net) Taps() []Tap { return n.taps }

// quantized is a layer built by models/nn.
type quantized struct {
	name string
	cond bool // concatenate the labels to the input
	lin  *nn.Linear
	conv *nn.Conv2d
	tcnv *nn.ConvTranspose2d
}

func (q *quantized) fwd(n *Net, x *gorgonia.Node) (*gorgonia.Node, error) {
	var y *gorgonia.Node
	var err error
	if q.cond {
		if x, err = ConcatCols(x, n.y); err != nil {
			return nil, err
		}
	}
	switch {
	case q.lin != nil:
		y, err = q.lin.Fwd(x)
	case q.conv != nil:
		y, err = q.conv.Fwd(x)
	default:
		y, err = q.tcnv.Fwd(x)
	}
	if err != nil {
		return nil, err
	}
	tap := Tap{Layer: q.name, In: x, Out: y}
	if n.capture || n.watch != nil {
		var dst *[]float32
		if n.capture {
			dst = new([]float32)
			tap.Err = dst
		}
		watch, layer := n.watch, q.name
		if y, err = watchGrad(y, func(dy []float32) {
			if dst != nil {
				*dst = append((*dst)[:0], dy...)
			}
			if watch != nil {
				watch(layer, dy)
			}
		}); err != nil {
			return nil, err
		}
	}
	n.taps = append(n.taps, tap)
	return y, nil
}

func (q *quantized) share(g *gorgonia.ExprGraph) stage {
	c := &quantized{name: q.name, cond: q.cond}
	switch {
	case q.lin != nil:
		c.lin = q.lin.Share(g)
	case q.conv != nil:
		c.conv = q.conv.Share(g)
	default:
		c.tcnv = q.tcnv.Share(g)
	}
	return c
}

func (q *quantized) params() []Param {
	var ns gorgonia.Nodes
	switch {
	case q.lin != nil:
		ns = q.lin.Params()
	case q.conv != nil:
		ns = q.conv.Params()
	default:
		ns = q.tcnv.Params()
	}
	ps := make([]Param, len(ns))
	for i, nd := range ns {
		ps[i] = Param{Name: nd.Name(), Layer: q.name, Weight: i == 0, Quantized: true, Node: nd}
	}
	return ps
}

type bnStage struct{ bn *BatchNorm }

func (s bnStage) fwd(_ *Net, x *gorgonia.Node) (*gorgonia.Node, error) { return s.bn.Fwd(x) }
func (s bnStage) share(g *gorgonia.ExprGraph) stage                    { return bnStage{s.bn.Share(g)} }
func (s bnStage) params() []Param {
	return []Param{
		{Name: s.bn.name + ".gamma", Layer: s.bn.name, Node: s.bn.Gamma},
		{Name: s.bn.name + ".beta", Layer: s.bn.name, Node: s.bn.Beta},
	}
}

type actStage struct {
	kind  actKind
	alpha float64
}

func (s actStage) fwd(_ *Net, x *gorgonia.Node) (*gorgonia.Node, error) {
	return activation(x, s.kind, s.alpha)
}
func (s actStage) share(*gorgonia.ExprGraph) stage { return s }
func (s actStage) params() []Param                 { return nil }

// builder assembles a Net layer by layer.
type builder struct {
	g       *gorgonia.ExprGraph
	f       Formats
	seed    uint64
	dt      tensor.Dtype
	normStd float64 // > 0: N(0, std²) weights (DCGAN)
	classes int     // of a conditional net
	net     *Net
	err     error
}

func (b *builder) formats(name string) quant.LayerFormats {
	if b.f == nil {
		return quant.LayerFormats{}
	}
	return b.f(name)
}

// layerSeed derives a layer's initialisation (and stochastic rounding)
// seed from the run's seed and the layer name.
func layerSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return h.Sum64()
}

func (b *builder) opts(name string) []nn.Option {
	o := []nn.Option{nn.WithSeed(layerSeed(b.seed, name)), nn.WithDtype(b.dt)}
	if b.normStd > 0 {
		o = append(o, nn.WithNormalInit(b.normStd))
	}
	return o
}

func (b *builder) linear(name string, in, out int) {
	if q := b.newLinear(name, in, out, b.net.condition, true); q != nil {
		b.net.stages = append(b.net.stages, q)
	}
}

// newLinear returns a quantized Linear layer; cond adds the labels to its
// inputs.
func (b *builder) newLinear(name string, in, out int, cond, bias bool) *quantized {
	if b.err != nil {
		return nil
	}
	full := b.net.name + "/" + name
	if cond {
		in += b.classes
	}
	o := b.opts(full)
	if !bias {
		o = append(o, nn.WithoutBias())
	}
	l, err := nn.NewLinear(b.g, full, in, out, b.formats(full), o...)
	b.err = err
	return &quantized{name: full, cond: cond, lin: l}
}

// projection ends a conditional discriminator: the logit is
// out(h) + ⟨embed(y), h⟩ (see AddRowDot), with h of in units.
func (b *builder) projection(outName, embedName string, in int) {
	out := b.newLinear(outName, in, 1, b.net.condition, true)
	emb := b.newLinear(embedName, b.classes, in, false, false)
	if b.err == nil {
		b.net.stages = append(b.net.stages, &projStage{out: out, embed: emb})
	}
}

type projStage struct{ out, embed *quantized }

func (s *projStage) fwd(n *Net, h *gorgonia.Node) (*gorgonia.Node, error) {
	logit, err := s.out.fwd(n, h)
	if err != nil {
		return nil, err
	}
	e, err := s.embed.fwd(n, n.y)
	if err != nil {
		return nil, err
	}
	return AddRowDot(logit, h, e)
}

func (s *projStage) share(g *gorgonia.ExprGraph) stage {
	return &projStage{out: s.out.share(g).(*quantized), embed: s.embed.share(g).(*quantized)}
}

func (s *projStage) params() []Param { return append(s.out.params(), s.embed.params()...) }

func (b *builder) conv(name string, in, out, k, stride, pad int, bias bool) {
	if b.err != nil {
		return
	}
	full := b.net.name + "/" + name
	o := b.opts(full)
	if !bias {
		o = append(o, nn.WithoutBias())
	}
	c, err := nn.NewConv2d(b.g, full, in, out, k, stride, pad, b.formats(full), o...)
	b.err = err
	b.net.stages = append(b.net.stages, &quantized{name: full, conv: c})
}

func (b *builder) deconv(name string, in, out, k, stride, pad int, bias bool) {
	if b.err != nil {
		return
	}
	full := b.net.name + "/" + name
	o := b.opts(full)
	if !bias {
		o = append(o, nn.WithoutBias())
	}
	c, err := nn.NewConvTranspose2d(b.g, full, in, out, k, stride, pad, 0, b.formats(full), o...)
	b.err = err
	b.net.stages = append(b.net.stages, &quantized{name: full, tcnv: c})
}

func (b *builder) batchNorm(name string, c int) {
	b.net.stages = append(b.net.stages, bnStage{NewBatchNorm(b.g, b.net.name+"/"+name, c, b.dt)})
}

func (b *builder) act(kind actKind, alpha float64) {
	b.net.stages = append(b.net.stages, actStage{kind, alpha})
}

// outputTanh ends G in the exact tanh, or in the approximation spec names
// (checked by Config.Check).
func (b *builder) outputTanh(spec string) {
	if spec == "" {
		b.act(actTanh, 0)
		return
	}
	a, err := tanhapprox.Parse(tanhapprox.Tanh, spec)
	if err != nil {
		b.err = err
		return
	}
	b.net.stages = append(b.net.stages, approxStage{a})
}

// approxStage is an approximate activation (the P8+T output tanh).
type approxStage struct{ a tanhapprox.Approx }

func (s approxStage) fwd(_ *Net, x *gorgonia.Node) (*gorgonia.Node, error) {
	return tanhapprox.Activation(x, s.a, tanhapprox.GradAtOutput)
}
func (s approxStage) share(*gorgonia.ExprGraph) stage { return s }
func (s approxStage) params() []Param                 { return nil }
