package models

import (
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/tanhapprox"
)

// noiseGAN is the training procedure CGAN and DCGAN share: a generator G
// maps noise z (and labels) to images, a discriminator D maps images (and
// labels) to logits, and each step runs a discriminator update, then a
// generator update on the same z and labels, with the non-saturating loss
// of Goodfellow et al. (D minimises softplus(-D(x)) + softplus(D(G(z))),
// G minimises softplus(-D(G(z)))). A model embeds it and adds Build.
type noiseGAN struct {
	cfg    Config
	zShape []int // of one latent vector
	xShape []int // of one image as G makes it and D takes it
}

func (m *noiseGAN) Config() string { return m.cfg.String() }

func (m *noiseGAN) Check(data []datasets.Dataset) error { return CheckData(m.cfg, data) }

// Generator describes G for sampling.
func (m *noiseGAN) Generator() gan.GeneratorSpec {
	return gan.GeneratorSpec{Net: "G", Z: m.zShape, Classes: m.cfg.Classes,
		Image: datasets.Shape{C: m.cfg.Channels, H: m.cfg.Height, W: m.cfg.Width}}
}

// Inputs declares, besides the data and noise Feed fills, "fake": G's
// batch, which the G update's graph makes and shares (gan.Graph.Share)
// for the D update to judge.
func (m *noiseGAN) Inputs(batch int) []gan.Input {
	in := []gan.Input{
		{Name: "x", Shape: append(tensor.Shape{batch}, m.xShape...)},
		{Name: "z", Shape: append(tensor.Shape{batch}, m.zShape...)},
		{Name: "fake", Shape: append(tensor.Shape{batch}, m.xShape...)},
	}
	if m.cfg.Classes > 0 {
		in = append(in, gan.Input{Name: "y", Shape: tensor.Shape{batch, m.cfg.Classes}},
			gan.Input{Name: "y_fake", Shape: tensor.Shape{batch, m.cfg.Classes}})
	}
	return in
}

func (m *noiseGAN) Feed(in gan.Inputs, data []gan.Batch, noise *rand.Rand) {
	k := m.cfg.Classes
	if data != nil {
		copy(in["x"], data[0].X)
		gan.OneHot(in["y"], data[0].Labels, k)
	}
	for i, z := 0, in["z"]; i < len(z); i++ {
		z[i] = float32(noise.NormFloat64())
	}
	if k > 0 {
		// One-hot rows of labels drawn in order, written as drawn.
		y := in["y_fake"]
		clear(y)
		for i := 0; i < len(y)/k; i++ {
			y[i*k+noise.IntN(k)] = 1
		}
	}
}

func (m *noiseGAN) Updates() []gan.Update {
	return []gan.Update{{Name: "D", Groups: []string{"D"}}, {Name: "G", Groups: []string{"G"}}}
}

func (m *noiseGAN) Metrics() []string { return []string{"d_real", "d_fake"} }

// inputs returns the graph's input nodes; y and yFake are nil for an
// unconditional model.
func (m *noiseGAN) inputs(u *gan.Graph, names ...string) ([]*gorgonia.Node, error) {
	ns := make([]*gorgonia.Node, len(names))
	for i, name := range names {
		if (name == "y" || name == "y_fake") && m.cfg.Classes == 0 {
			continue
		}
		var err error
		if ns[i], err = u.Input(name); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

func (m *noiseGAN) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	if u.Update().Name == "D" {
		// The fake batch is the one the G update's graph makes (shared
		// there): same z, labels and G, so the same values.
		in, err := m.inputs(u, "x", "fake", "y", "y_fake")
		if err != nil {
			return nil, err
		}
		x, fake, y, yFake := in[0], in[1], in[2], in[3]
		real, err := u.Forward("D", x, y)
		if err != nil {
			return nil, err
		}
		fakeOut, err := u.Forward("D", fake, yFake)
		if err != nil {
			return nil, err
		}
		u.Metric("d_real", real, gan.MeanSigmoid)
		u.Metric("d_fake", fakeOut, gan.MeanSigmoid)
		return nn.SoftplusLoss(u.LossScale(), []*gorgonia.Node{real, fakeOut}, []float64{-1, 1})
	}
	in, err := m.inputs(u, "z", "y_fake")
	if err != nil {
		return nil, err
	}
	fake, err := u.Forward("G", in[0], in[1])
	if err != nil {
		return nil, err
	}
	if err := u.Share("fake", fake); err != nil {
		return nil, err
	}
	out, err := u.Forward("D", fake, in[1])
	if err != nil {
		return nil, err
	}
	return nn.SoftplusMean(out, -1, u.LossScale())
}

// outputTanh returns the generator's output activation: the exact tanh,
// or the approximation spec names (checked by Config.Check).
func outputTanh(spec string) (nn.Module, error) {
	if spec == "" {
		return nn.Func("Tanh", nn.Tanh), nil
	}
	a, err := tanhapprox.Parse(tanhapprox.Tanh, spec)
	if err != nil {
		return nil, err
	}
	return nn.Func("Tanh≈"+spec, func(x *gorgonia.Node) (*gorgonia.Node, error) {
		return tanhapprox.Activation(x, a, tanhapprox.GradAtOutput)
	}), nil
}
