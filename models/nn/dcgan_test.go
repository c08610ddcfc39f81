package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// dcgan is a DCGAN-style generator and discriminator for size×size
// one-channel images (size divisible by 4), built from this package's
// layers: the shape of the benchmark and of the whole-model gradient check.
type dcgan struct {
	size, nz, base int
	gFC            *Linear
	gBN0, gBN1     *BatchNorm
	gUp1, gUp2     *ConvTranspose2d
	dC1, dC2       *Conv2d
	dBN            *BatchNorm
	dFC            *Linear
}

func newDCGAN(g *gorgonia.ExprGraph, pol *quant.Policy, dt tensor.Dtype, size, nz, base int, seed uint64) (*dcgan, error) {
	m := &dcgan{size: size, nz: nz, base: base}
	s4 := size / 4
	opt := func(k uint64) []Option { return []Option{WithDtype(dt), WithSeed(seed + k), WithNormalInit(0.02)} }
	var err error
	if m.gFC, err = NewLinear(g, "G/fc", nz, 2*base*s4*s4, pol.For("G/fc"), opt(1)...); err != nil {
		return nil, err
	}
	if m.gBN0, err = NewBatchNorm(g, "G/bn0", 2*base, 0.1, 1e-5, WithDtype(dt)); err != nil {
		return nil, err
	}
	if m.gUp1, err = NewConvTranspose2d(g, "G/up1", 2*base, base, 4, 2, 1, 0, pol.For("G/up1"), opt(2)...); err != nil {
		return nil, err
	}
	if m.gBN1, err = NewBatchNorm(g, "G/bn1", base, 0.1, 1e-5, WithDtype(dt)); err != nil {
		return nil, err
	}
	if m.gUp2, err = NewConvTranspose2d(g, "G/up2", base, 1, 4, 2, 1, 0, pol.For("G/up2"), opt(3)...); err != nil {
		return nil, err
	}
	if m.dC1, err = NewConv2d(g, "D/conv1", 1, base, 4, 2, 1, pol.For("D/conv1"), opt(4)...); err != nil {
		return nil, err
	}
	if m.dC2, err = NewConv2d(g, "D/conv2", base, 2*base, 4, 2, 1, pol.For("D/conv2"), opt(5)...); err != nil {
		return nil, err
	}
	if m.dBN, err = NewBatchNorm(g, "D/bn", 2*base, 0.1, 1e-5, WithDtype(dt)); err != nil {
		return nil, err
	}
	if m.dFC, err = NewLinear(g, "D/fc", 2*base*s4*s4, 1, pol.For("D/fc"), opt(6)...); err != nil {
		return nil, err
	}
	return m, nil
}

// share returns the model in graph g with the same parameter tensors.
func (m *dcgan) share(g *gorgonia.ExprGraph) *dcgan {
	c := *m
	c.gFC, c.gBN0, c.gUp1, c.gBN1, c.gUp2 = m.gFC.Share(g), m.gBN0.Share(g), m.gUp1.Share(g), m.gBN1.Share(g), m.gUp2.Share(g)
	c.dC1, c.dC2, c.dBN, c.dFC = m.dC1.Share(g), m.dC2.Share(g), m.dBN.Share(g), m.dFC.Share(g)
	return &c
}

func (m *dcgan) gParams() gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, p := range []gorgonia.Nodes{m.gFC.Params(), m.gBN0.Params(), m.gUp1.Params(), m.gBN1.Params(), m.gUp2.Params()} {
		ps = append(ps, p...)
	}
	return ps
}

func (m *dcgan) dParams() gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, p := range []gorgonia.Nodes{m.dC1.Params(), m.dC2.Params(), m.dBN.Params(), m.dFC.Params()} {
		ps = append(ps, p...)
	}
	return ps
}

// chain applies the steps in order.
func chain(x *gorgonia.Node, steps ...func(*gorgonia.Node) (*gorgonia.Node, error)) (*gorgonia.Node, error) {
	var err error
	for _, f := range steps {
		if x, err = f(x); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func leaky02(x *gorgonia.Node) (*gorgonia.Node, error) { return LeakyReLU(x, 0.2) }

// generator maps z (batch, nz) to images (batch, 1, size, size) in (-1, 1).
func (m *dcgan) generator(z *gorgonia.Node) (*gorgonia.Node, error) {
	n, s4 := z.Shape()[0], m.size/4
	return chain(z, m.gFC.Fwd,
		func(x *gorgonia.Node) (*gorgonia.Node, error) { return Reshape(x, tensor.Shape{n, 2 * m.base, s4, s4}) },
		m.gBN0.Fwd, ReLU, m.gUp1.Fwd, m.gBN1.Fwd, ReLU, m.gUp2.Fwd, Tanh)
}

// discriminator maps images to logits, shape (batch).
func (m *dcgan) discriminator(x *gorgonia.Node) (*gorgonia.Node, error) {
	n := x.Shape()[0]
	return chain(x, m.dC1.Fwd, leaky02, m.dC2.Fwd, m.dBN.Fwd, leaky02,
		func(x *gorgonia.Node) (*gorgonia.Node, error) {
			return Reshape(x, tensor.Shape{n, x.Shape().TotalSize() / n})
		},
		m.dFC.Fwd,
		func(x *gorgonia.Node) (*gorgonia.Node, error) { return Reshape(x, tensor.Shape{n}) })
}

// softplusMean returns mean(softplus(sign·logits)): the non-saturating
// GAN loss terms (sign -1 for "real", +1 for "fake").
func softplusMean(logits *gorgonia.Node, sign float64) (*gorgonia.Node, error) {
	x := logits
	var err error
	if sign < 0 {
		if x, err = gorgonia.Neg(x); err != nil {
			return nil, err
		}
	}
	if x, err = gorgonia.Softplus(x); err != nil {
		return nil, err
	}
	return gorgonia.Mean(x)
}

// TestDCGANGradient checks the gradients of the whole generator +
// discriminator loss with respect to every parameter, on 8×8 images.
func TestDCGANGradient(t *testing.T) {
	pols := []struct {
		name string
		pol  *quant.Policy
		opts *gradcheck.Options
	}{
		{"fp", nil, &gradcheck.Options{Step: 1e-6, RelTol: 1e-4, AbsTol: 1e-7}},
		// Rounding to posit(32,2) moves values by ~1e-8 relative; a step
		// of 1e-3 keeps that noise near 1e-5 while the truncation error
		// of the smooth parts stays near 1e-6.
		{"posit32", &quant.Policy{Default: wideFormats(quant.AccumFP32)}, &gradcheck.Options{Step: 1e-3, RelTol: 1e-3, AbsTol: 1e-5}},
	}
	for _, pc := range pols {
		checkGrad(t, "dcgan "+pc.name, func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(51, 52))
			m, err := newDCGAN(g, pc.pol, tensor.Float64, 8, 3, 2, 7)
			if err != nil {
				return nil, nil, err
			}
			// Larger weights than DCGAN's 0.02, so that the check is not
			// dominated by round-off.
			for _, p := range append(m.gParams(), m.dParams()...) {
				if p.Shape().Dims() > 1 {
					s := p.Value().Data().([]float64)
					for i := range s {
						s[i] *= 20
					}
				}
			}
			z := input(g, "z", []int{2, 3}, normal(rng))
			fake, err := m.generator(z)
			if err != nil {
				return nil, nil, err
			}
			logits, err := m.discriminator(fake)
			if err != nil {
				return nil, nil, err
			}
			loss, err := softplusMean(logits, -1)
			return loss, append(m.gParams(), m.dParams()...), err
		}, pc.opts)
	}
}
