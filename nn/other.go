package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
)

// A layer that is not a dot product (normalisation, activation, residual
// add, scaling) has no weights or activations to round, but real
// low-precision hardware computes it in some format too: Ho et al. train
// with "P(16,1) other layers". Its role is LayerFormats.Other: the layer's
// input and output in the forward pass, and the gradients arriving at its
// output and leaving its input in the backward pass, are rounded to it.
// The computation inside the layer (batch norm's mean and variance, say)
// stays float32, as a fused kernel with a wide internal accumulator would
// keep it.

// Other returns m with its output, and the gradient it passes back,
// rounded to the Other format of the layer named name in this scope
// (Formats(name).Other); m itself if that format is float32, so that a
// policy without it builds the same graph as before. Scope's norms,
// activations, Scale and Residual go through it; models use it for any
// other module that computes.
func (s *Scope) Other(name string, m Module) Module {
	full := s.Name(name)
	if s.st.uses[full] == 0 {
		s.st.names = append(s.st.names, full)
	}
	s.st.uses[full]++
	rf := s.Formats(name).Other
	if rf.IsZero() {
		return m
	}
	n := s.st.uses[full] - 1
	return &otherLayer{name: full, m: m, q: rf, s: otherStream(LayerSeed(s.st.seed, fmt.Sprintf("%s#%d", full, n)))}
}

// OtherNames returns the names of the layers built in this scope's graph
// that have an Other role (whether or not the policy gives it a format),
// in the order they were built: with the quantized layers' names (Layers),
// every name a policy can address.
func (s *Scope) OtherNames() []string { return append([]string(nil), s.st.names...) }

// otherStream returns the random stream of an Other role, seeded from the
// layer's seed (see LayerSeed), which the trainer derives from the step
// when it rebuilds, so that a resumed run rounds as an uninterrupted one.
func otherStream(seed uint64) *Stream {
	return SharedStream(seed, 9) // id 9: after the roles of the dot-product layers
}

// RoundOther returns x rounded by q, with the gradient that flows back
// through it rounded by q too: the Other role applied to a tensor that no
// module of this package computes (the loss, a network's output entering
// it). seed seeds stochastic rounding. A zero q returns x. It is Quantize
// with q both ways.
func RoundOther(x *gorgonia.Node, q Quantizer, seed uint64) (*gorgonia.Node, error) {
	if q.IsZero() {
		return x, nil
	}
	return roundNode(x, "Other", q, otherStream(seed))
}

// otherLayer is a module whose output and input gradient are rounded.
type otherLayer struct {
	name string
	m    Module
	q    Quantizer
	// s is shared by the copies Share makes: a TapeMachine runs one node
	// at a time, so its random source is used by one node at a time.
	s *Stream
}

// Forward rounds the module's input and output, and in the backward pass
// the gradient arriving at its output and the one it sends back to its
// input (which, at a fan-out such as a residual block's input, includes
// the sum of the branches' gradients).
func (o *otherLayer) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	x, err := roundNode(x, o.name+".in", o.q, o.s)
	if err != nil {
		return nil, err
	}
	y, err := o.m.Forward(p, x)
	if err != nil {
		return nil, err
	}
	return roundNode(y, o.name, o.q, o.s)
}

func (o *otherLayer) Params() []Param    { return o.m.Params() }
func (o *otherLayer) Buffers() []Buffer  { return o.m.Buffers() }
func (o *otherLayer) Children() []Module { return []Module{o.m} }
func (o *otherLayer) Share(g *gorgonia.ExprGraph) Module {
	return &otherLayer{name: o.name, m: o.m.Share(g), q: o.q, s: o.s}
}
func (o *otherLayer) String() string { return fmt.Sprintf("%v rounded to %v", o.m, o.q.Format) }

// unwrapOther returns the module an Other rounding wraps, or m.
func unwrapOther(m Module) Module {
	if o, ok := m.(*otherLayer); ok {
		return o.m
	}
	return m
}

// roundNode adds a node that rounds x by q and, in the backward pass,
// rounds the gradient by q too, drawing from s.
func roundNode(x *gorgonia.Node, label string, q Quantizer, s *Stream) (*gorgonia.Node, error) {
	return apply(newQuantizeOp(q, q, s, 0, label), x)
}
