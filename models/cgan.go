package models

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// CGAN is the multilayer-perceptron conditional GAN used for MNIST (Mirza
// and Osindero 2014, in the form popularised by the PyTorch-GAN
// collection): G maps z through hidden layers of F, 2F, 4F, 8F units
// (LeakyReLU 0.2, batch norm after all but the first) to a tanh image; D
// maps the image through three hidden layers of 4F units (LeakyReLU 0.2)
// to one logit. The one-hot label is concatenated to the input of every
// layer, not only the first, and D adds the projection term ⟨embed(y), h⟩
// of its last hidden layer h (Miyato and Koyama, ICLR 2018; the embedding
// is a quantized layer "D/embed"): both make the networks learn the
// classes early instead of after several epochs. The labels are 0 and 1,
// values of every format that holds both, so where they join a tensor the
// concatenation keeps that tensor's format (see nn.FormatOf).
const CGAN = "cgan"

func init() {
	Register(Spec{
		Name:    CGAN,
		Summary: "conditional MLP GAN (labels at every layer, projection discriminator)",
		Labels:  true,
		Default: func(img datasets.Shape, classes int) Config {
			return Config{ZDim: 100, Classes: classes, Channels: img.C, Height: img.H, Width: img.W, Features: 128}
		},
		Check: func(c Config) error {
			switch {
			case c.ZDim <= 0:
				return fmt.Errorf("models: cgan: z size %d must be positive", c.ZDim)
			case c.Classes < 2:
				return fmt.Errorf("models: cgan needs a labelled data set of at least 2 classes, have %d", c.Classes)
			}
			return nil
		},
		New: func(c Config) (gan.Model, error) {
			return &cgan{noiseGAN{cfg: c, zShape: []int{c.ZDim}, xShape: []int{c.ImageSize()}}}, nil
		},
	})
}

type cgan struct{ noiseGAN }

func (m *cgan) Build(s *nn.Scope) ([]gan.Group, error) {
	c := m.cfg
	F := c.Features
	g := s.Sub("G")
	var gl []nn.Module
	in := c.ZDim
	for i, w := range []int{F, 2 * F, 4 * F, 8 * F} {
		gl = append(gl, nn.Conditional(g.Linear(fmt.Sprintf("fc%d", i+1), in+c.Classes, w)))
		if i > 0 {
			gl = append(gl, g.BatchNorm(fmt.Sprintf("bn%d", i+1), w))
		}
		gl = append(gl, g.LeakyReLU(0.2))
		in = w
	}
	gl = append(gl, nn.Conditional(g.Linear("fc5", in+c.Classes, c.ImageSize())))
	out, err := outputTanh(c.Tanh)
	if err != nil {
		return nil, err
	}
	gl = append(gl, g.Other("tanh", out))

	d := s.Sub("D")
	var dl []nn.Module
	in = c.ImageSize()
	for i := 0; i < 3; i++ {
		dl = append(dl, nn.Conditional(d.Linear(fmt.Sprintf("fc%d", i+1), in+c.Classes, 4*F)), d.LeakyReLU(0.2))
		in = 4 * F
	}
	dl = append(dl, &projection{
		out:   nn.Conditional(d.Linear("fc4", in+c.Classes, 1)),
		embed: d.Linear("embed", c.Classes, in, nn.WithoutBias()),
	})
	return []gan.Group{{Name: "G", Net: nn.Seq(gl...)}, {Name: "D", Net: nn.Seq(dl...)}}, nil
}

// projection ends a conditional discriminator: the logit is
// out(h) + ⟨embed(y), h⟩ (see nn.AddRowDot), with y the pass's labels.
type projection struct{ out, embed nn.Module }

func (p *projection) Forward(pass *nn.Pass, h *gorgonia.Node) (*gorgonia.Node, error) {
	logit, err := p.out.Forward(pass, h)
	if err != nil {
		return nil, err
	}
	e, err := p.embed.Forward(pass, pass.Cond)
	if err != nil {
		return nil, err
	}
	return nn.AddRowDot(logit, h, e)
}

func (p *projection) Params() []nn.Param    { return append(p.out.Params(), p.embed.Params()...) }
func (p *projection) Buffers() []nn.Buffer  { return nil }
func (p *projection) Children() []nn.Module { return []nn.Module{p.out, p.embed} }
func (p *projection) Share(g *gorgonia.ExprGraph) nn.Module {
	return &projection{out: p.out.Share(g), embed: p.embed.Share(g)}
}
