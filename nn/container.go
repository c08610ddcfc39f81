package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
)

// Seq returns the modules applied one after another.
func Seq(ms ...Module) Module { return sequential(ms) }

type sequential []Module

func (s sequential) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	for _, m := range s {
		var err error
		if x, err = m.Forward(p, x); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func (s sequential) Params() []Param    { return collect(s, Module.Params) }
func (s sequential) Buffers() []Buffer  { return collect(s, Module.Buffers) }
func (s sequential) Children() []Module { return s }
func (s sequential) Share(g *gorgonia.ExprGraph) Module {
	c := make(sequential, len(s))
	for i, m := range s {
		c[i] = m.Share(g)
	}
	return c
}

func collect[T any](ms []Module, f func(Module) []T) []T {
	var all []T
	for _, m := range ms {
		all = append(all, f(m)...)
	}
	return all
}

// Residual returns x + body(x): the skip connection of a residual block.
func Residual(body Module) Module { return residual{body: body} }

type residual struct {
	body    Module
	promote *promotion // nil: the sum is left as Add gives it
}

func (r residual) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	y, err := r.body.Forward(p, x)
	if err != nil {
		return nil, err
	}
	sum, err := Add(x, y)
	if err != nil || r.promote == nil {
		return sum, err
	}
	return r.promote.round(p, sum, x, y)
}

func (r residual) Params() []Param                    { return r.body.Params() }
func (r residual) Buffers() []Buffer                  { return r.body.Buffers() }
func (r residual) Children() []Module                 { return []Module{r.body} }
func (r residual) Share(g *gorgonia.ExprGraph) Module { return residual{r.body.Share(g), r.promote} }

// Cat returns the outputs of the modules, all applied to the same input,
// concatenated along axis 1 (features or channels). Cat(Identity(), m)
// is a dense connection: x and m(x) side by side.
func Cat(ms ...Module) Module { return catModules(ms) }

type catModules []Module

func (c catModules) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	if len(c) == 0 {
		return nil, fmt.Errorf("nn: Cat of no modules")
	}
	out, err := c[0].Forward(p, x)
	if err != nil {
		return nil, err
	}
	for _, m := range c[1:] {
		y, err := m.Forward(p, x)
		if err != nil {
			return nil, err
		}
		if out, err = Concat(out, y); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c catModules) Params() []Param    { return collect(c, Module.Params) }
func (c catModules) Buffers() []Buffer  { return collect(c, Module.Buffers) }
func (c catModules) Children() []Module { return c }
func (c catModules) Share(g *gorgonia.ExprGraph) Module {
	return catModules(sequential(c).Share(g).(sequential))
}

// Conditional returns m applied to its input with the pass's labels
// (Pass.Cond) concatenated along axis 1: the conditioning of a
// conditional GAN's layers.
func Conditional(m Module) Module { return conditional{m} }

type conditional struct{ m Module }

func (c conditional) Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	y := p.cond()
	if y == nil {
		return nil, fmt.Errorf("nn: a conditional layer needs labels (Pass.Cond)")
	}
	xy, err := Concat(x, y)
	if err != nil {
		return nil, err
	}
	return c.m.Forward(p, xy)
}

func (c conditional) Params() []Param                    { return c.m.Params() }
func (c conditional) Buffers() []Buffer                  { return c.m.Buffers() }
func (c conditional) Children() []Module                 { return []Module{c.m} }
func (c conditional) Share(g *gorgonia.ExprGraph) Module { return conditional{c.m.Share(g)} }

// Identity returns its input unchanged.
func Identity() Module {
	return Func("Identity", func(x *gorgonia.Node) (*gorgonia.Node, error) { return x, nil })
}

// Func returns a module without parameters that applies f: an activation,
// a padding, a reshape. name describes it.
func Func(name string, f func(x *gorgonia.Node) (*gorgonia.Node, error)) Module {
	return fn{name, f}
}

type fn struct {
	name string
	f    func(*gorgonia.Node) (*gorgonia.Node, error)
}

func (f fn) Forward(_ *Pass, x *gorgonia.Node) (*gorgonia.Node, error) { return f.f(x) }
func (f fn) Params() []Param                                           { return nil }
func (f fn) Buffers() []Buffer                                         { return nil }
func (f fn) Share(*gorgonia.ExprGraph) Module                          { return f }
func (f fn) String() string                                            { return f.name }
