package models_test

// This file is a whole model, written as a contributor would write one:
// a least-squares GAN (Mao et al., ICCV 2017) whose generator has a
// residual block with reflection padding and instance norm, and whose
// discriminator has a dense connection. It uses only exported API of
// models, nn and gan, registers itself, and the tests below train
// it through the generic trainer, checkpoint it and resume it.
// docs/adding-a-model.md walks through it.

import (
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
)

// 1. Register the model: its name, defaults and constructor.
func init() {
	models.Register(models.Spec{
		Name:    "lsgan-mini",
		Summary: "a small least-squares GAN (the example of docs/adding-a-model.md)",
		Default: func(img datasets.Shape, _ int) models.Config {
			return models.Config{ZDim: 16, Channels: img.C, Height: img.H, Width: img.W, Features: 8,
				Options: map[string]string{"blocks": "1"}}
		},
		New: func(c models.Config) (gan.Model, error) {
			blocks, err := c.Int("blocks", 1)
			if err != nil {
				return nil, err
			}
			return &lsgan{cfg: c, blocks: blocks}, nil
		},
	})
}

type lsgan struct {
	cfg    models.Config
	blocks int
}

func (m *lsgan) Config() string                      { return m.cfg.String() }
func (m *lsgan) Check(data []datasets.Dataset) error { return models.CheckData(m.cfg, data) }

// 2. Build the networks, one per parameter group. Layer names come from
// the scopes: "G/fc", "G/res1/conv1", ..., which policies address.
func (m *lsgan) Build(s *nn.Scope) ([]gan.Group, error) {
	c, F := m.cfg, m.cfg.Features
	g := s.Sub("G")
	gl := []nn.Module{g.Linear("fc", c.ZDim, F*c.Height*c.Width), g.Reshape(F, c.Height, c.Width), g.ReLU()}
	for i := 1; i <= m.blocks; i++ {
		r := g.Sub("res" + string(rune('0'+i)))
		gl = append(gl, nn.Residual(nn.Seq(
			r.ReflectionPad(1), r.Conv("conv1", F, F, 3, 1, 0), r.InstanceNorm("in1", F), r.ReLU(),
			r.ReflectionPad(1), r.Conv("conv2", F, F, 3, 1, 0), r.InstanceNorm("in2", F))))
	}
	gl = append(gl, g.Conv("out", F, c.Channels, 3, 1, 1), g.Tanh())

	d := s.Sub("D")
	disc := nn.Seq(
		d.Conv("conv1", c.Channels, F, 4, 2, 1), d.LeakyReLU(0.2),
		nn.Cat(nn.Identity(), nn.Seq(d.Conv("dense", F, F, 3, 1, 1), d.LeakyReLU(0.2))), // 2F maps
		d.Conv("conv2", 2*F, 1, 3, 1, 1))
	return []gan.Group{{Name: "G", Net: nn.Seq(gl...)}, {Name: "D", Net: disc}}, nil
}

// 3. Declare the step's inputs and fill them from the data and the noise.
func (m *lsgan) Inputs(batch int) []gan.Input {
	return []gan.Input{
		{Name: "x", Shape: tensor.Shape{batch, m.cfg.Channels, m.cfg.Height, m.cfg.Width}},
		{Name: "z", Shape: tensor.Shape{batch, m.cfg.ZDim}},
	}
}

func (m *lsgan) Feed(in gan.Inputs, data []gan.Batch, noise *rand.Rand) {
	if data != nil {
		copy(in["x"], data[0].X)
	}
	for i := range in["z"] {
		in["z"][i] = float32(noise.NormFloat64())
	}
}

// 4. The updates of a step and their losses: D minimises
// ½(D(x)-1)² + ½D(G(z))², then G minimises ½(D(G(z))-1)².
func (m *lsgan) Updates() []gan.Update {
	return []gan.Update{{Name: "D", Groups: []string{"D"}}, {Name: "G", Groups: []string{"G"}}}
}

func (m *lsgan) Metrics() []string { return []string{"d_real"} }

func (m *lsgan) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	z, err := u.Input("z")
	if err != nil {
		return nil, err
	}
	fake, err := u.Forward("G", z, nil)
	if err != nil {
		return nil, err
	}
	dFake, err := u.Forward("D", fake, nil)
	if err != nil {
		return nil, err
	}
	if u.Update().Name == "G" {
		return nn.MSETarget(dFake, 1, u.LossScale())
	}
	x, err := u.Input("x")
	if err != nil {
		return nil, err
	}
	dReal, err := u.Forward("D", x, nil)
	if err != nil {
		return nil, err
	}
	u.Metric("d_real", dReal, mean)
	real, err := nn.MSETarget(dReal, 1, u.LossScale())
	if err != nil {
		return nil, err
	}
	fakeLoss, err := nn.MSETarget(dFake, 0, u.LossScale())
	if err != nil {
		return nil, err
	}
	return nn.WeightedSum([]float64{0.5, 0.5}, real, fakeLoss)
}

func mean(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s / float64(len(x))
}

// 5. Optional: say how G makes images from noise, and sample grids,
// generated image sets (FID) and inspection work for the model.
func (m *lsgan) Generator() gan.GeneratorSpec {
	return gan.GeneratorSpec{Net: "G", Z: []int{m.cfg.ZDim},
		Image: datasets.Shape{C: m.cfg.Channels, H: m.cfg.Height, W: m.cfg.Width}}
}
