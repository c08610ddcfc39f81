package nn

import (
	"fmt"
	"hash/fnv"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Formats returns the formats of the quantized layer with the given name
// ("G/fc1", "G_AB/res3/conv1"): usually policy.Policy.For with exponent
// biases applied. A nil Formats means float32 everywhere.
type Formats func(layer string) LayerFormats

// Scope builds modules in one graph under a name prefix. It gives every
// quantized layer its policy name ("G_AB/res3/conv1"), looks its formats
// up, and derives its initialisation seed from the run's seed and that
// name, so that adding a layer does not change the others' weights.
//
// Constructors that can fail (a size that is not positive, say) record
// the first error in the scope and return a module that is never to be
// used; check Err once after building, as with bufio.Scanner.
type Scope struct {
	prefix string
	opts   []Option
	st     *scopeState
}

type scopeState struct {
	g       *gorgonia.ExprGraph
	formats Formats
	seed    uint64
	err     error
	// uses counts the Other roundings built under each name, so that the
	// unnamed layers sharing one ("G/relu") get streams of their own.
	uses  map[string]int
	names []string // the names of Other roles, in order (OtherNames)
}

// NewScope returns the root scope of graph g: layers get their formats
// from f (nil: float32) and seeds derived from seed. opts apply to every
// layer built in the scope (WithDtype, WithNormalInit).
func NewScope(g *gorgonia.ExprGraph, f Formats, seed uint64, opts ...Option) *Scope {
	return &Scope{opts: opts, st: &scopeState{g: g, formats: f, seed: seed, uses: map[string]int{}}}
}

// Sub returns the scope of the part named name: its layers are named
// "<prefix>/<name>/<layer>".
func (s *Scope) Sub(name string) *Scope {
	c := *s
	c.prefix = s.Name(name)
	return &c
}

// With returns a scope whose layers are built with opts added.
func (s *Scope) With(opts ...Option) *Scope {
	c := *s
	c.opts = append(append([]Option(nil), s.opts...), opts...)
	return &c
}

// Name returns the full name of a layer called local in this scope.
func (s *Scope) Name(local string) string {
	if s.prefix == "" {
		return local
	}
	return s.prefix + "/" + local
}

// Graph returns the graph the scope builds in.
func (s *Scope) Graph() *gorgonia.ExprGraph { return s.st.g }

// Err returns the first error of a constructor called on the scope or any
// scope derived from it.
func (s *Scope) Err() error { return s.st.err }

// Fail records err (the first one is kept), for model code that checks
// its own arguments while building.
func (s *Scope) Fail(err error) {
	if s.st.err == nil && err != nil {
		s.st.err = err
	}
}

// Formats returns the formats of the layer called local in this scope.
func (s *Scope) Formats(local string) LayerFormats {
	if s.st.formats == nil {
		return LayerFormats{}
	}
	return s.st.formats(s.Name(local))
}

// LayerSeed derives a layer's initialisation (and stochastic rounding)
// seed from the run's seed and the layer's full name.
func LayerSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return h.Sum64()
}

func (s *Scope) layerOpts(full string, opts []Option) []Option {
	o := []Option{WithSeed(LayerSeed(s.st.seed, full))}
	o = append(o, s.opts...)
	return append(o, opts...)
}

func (s *Scope) dtype() tensor.Dtype { return buildOptions(s.opts).dtype }

// Linear returns a quantized fully connected layer in→out (see NewLinear).
func (s *Scope) Linear(name string, in, out int, opts ...Option) Module {
	full := s.Name(name)
	l, err := NewLinear(s.st.g, full, in, out, s.Formats(name), s.layerOpts(full, opts)...)
	if err != nil {
		s.Fail(err)
		return failed{}
	}
	return &quantLayer{name: full, lin: l}
}

// Conv returns a quantized convolution (see NewConv2d).
func (s *Scope) Conv(name string, in, out, k, stride, pad int, opts ...Option) Module {
	full := s.Name(name)
	c, err := NewConv2d(s.st.g, full, in, out, k, stride, pad, s.Formats(name), s.layerOpts(full, opts)...)
	if err != nil {
		s.Fail(err)
		return failed{}
	}
	return &quantLayer{name: full, conv: c}
}

// ConvTranspose returns a quantized transposed convolution (see
// NewConvTranspose2d; no output padding).
func (s *Scope) ConvTranspose(name string, in, out, k, stride, pad int, opts ...Option) Module {
	full := s.Name(name)
	c, err := NewConvTranspose2d(s.st.g, full, in, out, k, stride, pad, 0, s.Formats(name), s.layerOpts(full, opts)...)
	if err != nil {
		s.Fail(err)
		return failed{}
	}
	return &quantLayer{name: full, tconv: c}
}

// BatchNorm returns a batch norm over c channels with PyTorch's defaults
// (momentum 0.1, ε 1e-5), in training mode.
func (s *Scope) BatchNorm(name string, c int) Module {
	l, err := NewBatchNorm(s.st.g, s.Name(name), c, 0.1, 1e-5, WithDtype(s.dtype()))
	if err != nil {
		s.Fail(err)
		return failed{}
	}
	return s.Other(name, &batchNormLayer{l})
}

// InstanceNorm returns an instance norm over c channels (ε 1e-5) with
// learnt scale and shift.
func (s *Scope) InstanceNorm(name string, c int) Module {
	l, err := NewInstanceNorm(s.st.g, s.Name(name), c, 1e-5, WithDtype(s.dtype()))
	if err != nil {
		s.Fail(err)
		return failed{}
	}
	return s.Other(name, &instanceNormLayer{l})
}

// quantLayer is a quantized Linear, Conv2d or ConvTranspose2d as a Module:
// it records its application in the pass's taps and shows the pass's
// hooks its error.
type quantLayer struct {
	name  string
	lin   *Linear
	conv  *Conv2d
	tconv *ConvTranspose2d
}

func (q *quantLayer) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	var y *gorgonia.Node
	var err error
	switch {
	case q.lin != nil:
		y, err = q.lin.Fwd(x)
	case q.conv != nil:
		y, err = q.conv.Fwd(x)
	default:
		y, err = q.tconv.Fwd(x)
	}
	if err != nil {
		return nil, err
	}
	out := q.roles().f.Out
	p.know(y, out)
	if y, err = p.tap(q.name, x, y); err != nil {
		return nil, err
	}
	p.know(y, out) // a watching node passes y on unchanged
	return y, nil
}

func (q *quantLayer) roles() *roles {
	switch {
	case q.lin != nil:
		return q.lin.roles
	case q.conv != nil:
		return q.conv.roles
	}
	return q.tconv.roles
}

func (q *quantLayer) Share(g *gorgonia.ExprGraph) Module {
	c := &quantLayer{name: q.name}
	switch {
	case q.lin != nil:
		c.lin = q.lin.Share(g)
	case q.conv != nil:
		c.conv = q.conv.Share(g)
	default:
		c.tconv = q.tconv.Share(g)
	}
	return c
}

func (q *quantLayer) Params() []Param {
	var ns gorgonia.Nodes
	switch {
	case q.lin != nil:
		ns = q.lin.Params()
	case q.conv != nil:
		ns = q.conv.Params()
	default:
		ns = q.tconv.Params()
	}
	ps := make([]Param, len(ns))
	for i, nd := range ns {
		ps[i] = Param{Name: nd.Name(), Layer: q.name, Weight: i == 0, Quantized: true, Node: nd}
	}
	ps[0].wc = q.roles().wc
	return ps
}

func (q *quantLayer) Buffers() []Buffer { return nil }

func (q *quantLayer) String() string { return "quantized " + q.name }

// failed stands for a module whose constructor failed (see Scope.Err).
type failed struct{}

func (failed) Forward(*Pass, *gorgonia.Node) (*gorgonia.Node, error) {
	return nil, fmt.Errorf("nn: a module whose construction failed was used (check Scope.Err)")
}
func (failed) Params() []Param                    { return nil }
func (failed) Buffers() []Buffer                  { return nil }
func (f failed) Share(*gorgonia.ExprGraph) Module { return f }

// normParams returns gamma and beta as the parameters of layer name.
func normParams(name string, gamma, beta *gorgonia.Node) []Param {
	return []Param{
		{Name: gamma.Name(), Layer: name, Node: gamma},
		{Name: beta.Name(), Layer: name, Node: beta},
	}
}

// The activations, Scale and Residual a scope builds have no name of their
// own: a policy addresses their Other role as "<scope>/relu",
// "<scope>/leaky_relu", "<scope>/tanh", "<scope>/sigmoid", "<scope>/scale"
// and "<scope>/add" ("G/relu", "G_AB/res3/add"; see Scope.Other).

// ReLU returns max(x, 0) as a module.
func (s *Scope) ReLU() Module { return s.Other("relu", Func("ReLU", ReLU)) }

// LeakyReLU returns the leaky ReLU of slope alpha as a module.
func (s *Scope) LeakyReLU(alpha float64) Module {
	return s.Other("leaky_relu", Func(fmt.Sprintf("LeakyReLU(%g)", alpha), func(x *gorgonia.Node) (*gorgonia.Node, error) { return LeakyReLU(x, alpha) }))
}

// Tanh returns tanh as a module.
func (s *Scope) Tanh() Module { return s.Other("tanh", Func("Tanh", Tanh)) }

// Sigmoid returns the logistic function as a module.
func (s *Scope) Sigmoid() Module { return s.Other("sigmoid", Func("Sigmoid", Sigmoid)) }

// Residual returns x + body(x) (see Residual) with the sum rounded to the
// Other format of "<scope>/add"; when the policy leaves it unnamed (not
// even "none") and x and body(x) are in different formats, to their
// promoted format (see quant.Promote and promotion.round).
func (s *Scope) Residual(body Module) Module {
	m := s.Other("add", Residual(body))
	r, ok := m.(residual)
	lf := s.Formats("add")
	if !ok || lf.OtherNone {
		return m // rounded to the format the policy names
	}
	full := s.Name("add")
	r.promote = &promotion{name: full, p: lf.Promoter, s: otherStream(LayerSeed(s.st.seed, fmt.Sprintf("%s#%d", full, s.st.uses[full]-1)))}
	return r
}

// ReflectionPad returns reflection padding by pad on every side as a
// module (see ReflectionPad2D).
func (s *Scope) ReflectionPad(pad int) Module {
	return Func(fmt.Sprintf("ReflectionPad2D(%d)", pad), func(x *gorgonia.Node) (*gorgonia.Node, error) { return ReflectionPad2D(x, pad) })
}

// PixelShuffle returns depth-to-space by r as a module (see PixelShuffle).
func (s *Scope) PixelShuffle(r int) Module {
	return Func(fmt.Sprintf("PixelShuffle(%d)", r), func(x *gorgonia.Node) (*gorgonia.Node, error) { return PixelShuffle(x, r) })
}

// Scale returns multiplication by k as a module (see Scale).
func (s *Scope) Scale(k float64) Module {
	return s.Other("scale", Func(fmt.Sprintf("Scale(%g)", k), func(x *gorgonia.Node) (*gorgonia.Node, error) { return Scale(x, k) }))
}

// Upsample returns nearest-neighbour upsampling by scale as a module.
func (s *Scope) Upsample(scale int) Module {
	return Func(fmt.Sprintf("Upsample2D(%d)", scale), func(x *gorgonia.Node) (*gorgonia.Node, error) { return Upsample2D(x, scale) })
}

// Reshape returns a module that copies its input into the given shape
// per sample: (batch, shape...).
func (s *Scope) Reshape(shape ...int) Module {
	return Func(fmt.Sprintf("Reshape%v", shape), func(x *gorgonia.Node) (*gorgonia.Node, error) {
		return Reshape(x, append(tensor.Shape{x.Shape()[0]}, shape...))
	})
}

// batchNormLayer is a BatchNorm as a Module.
type batchNormLayer struct{ *BatchNorm }

func (l *batchNormLayer) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.fwd(x, p.frozen())
}
func (l *batchNormLayer) Params() []Param { return normParams(l.name, l.Gamma, l.Beta) }
func (l *batchNormLayer) Buffers() []Buffer {
	return []Buffer{{l.name + ".running_mean", l.RunningMean}, {l.name + ".running_var", l.RunningVar}}
}
func (l *batchNormLayer) Share(g *gorgonia.ExprGraph) Module {
	return &batchNormLayer{l.BatchNorm.Share(g)}
}
func (l *batchNormLayer) SetTraining(on bool) { *l.mode = on }

// instanceNormLayer is an InstanceNorm as a Module.
type instanceNormLayer struct{ *InstanceNorm }

func (l *instanceNormLayer) Forward(_ *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.Fwd(x)
}
func (l *instanceNormLayer) Params() []Param   { return normParams(l.name, l.Gamma, l.Beta) }
func (l *instanceNormLayer) Buffers() []Buffer { return nil }
func (l *instanceNormLayer) Share(g *gorgonia.ExprGraph) Module {
	return &instanceNormLayer{l.InstanceNorm.Share(g)}
}
