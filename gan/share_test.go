package gan_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// mlpGAN is a small GAN on flattened toy images whose D update either
// runs G itself or reads the fake batch the G update shares; share names
// a way to share it wrongly.
type mlpGAN struct {
	size  int    // pixels per image
	share string // "" (no sharing), "ok", "undeclared", "shape", "twice", "d-output"
}

func (m *mlpGAN) Config() string                 { return "{}" }
func (m *mlpGAN) Check([]datasets.Dataset) error { return nil }
func (m *mlpGAN) Metrics() []string              { return nil }
func (m *mlpGAN) Updates() []gan.Update {
	return []gan.Update{{Name: "D", Groups: []string{"D"}}, {Name: "G", Groups: []string{"G"}}}
}

func (m *mlpGAN) Build(s *nn.Scope) ([]gan.Group, error) {
	g, d := s.Sub("G"), s.Sub("D")
	return []gan.Group{
		{Name: "G", Net: nn.Seq(g.Linear("fc1", 8, 16), g.BatchNorm("bn1", 16), g.LeakyReLU(0.2), g.Linear("fc2", 16, m.size), g.Tanh())},
		{Name: "D", Net: nn.Seq(d.Linear("fc1", m.size, 16), d.LeakyReLU(0.2), d.Linear("fc2", 16, 1))},
	}, nil
}

func (m *mlpGAN) Inputs(batch int) []gan.Input {
	in := []gan.Input{{Name: "x", Shape: tensor.Shape{batch, m.size}}, {Name: "z", Shape: tensor.Shape{batch, 8}}}
	switch m.share {
	case "ok", "shape", "twice":
		in = append(in, gan.Input{Name: "fake", Shape: tensor.Shape{batch, m.size}})
	case "d-output":
		in = append(in, gan.Input{Name: "fake", Shape: tensor.Shape{batch, 1}})
	}
	return in
}

func (m *mlpGAN) Feed(in gan.Inputs, data []gan.Batch, noise *rand.Rand) {
	if data != nil {
		copy(in["x"], data[0].X)
	}
	for i := range in["z"] {
		in["z"][i] = float32(noise.NormFloat64())
	}
}

func (m *mlpGAN) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	z, err := u.Input("z")
	if err != nil {
		return nil, err
	}
	if u.Update().Name == "D" {
		x, err := u.Input("x")
		if err != nil {
			return nil, err
		}
		var fake *gorgonia.Node
		if m.share == "ok" {
			fake, err = u.Input("fake")
		} else {
			fake, err = u.Forward("G", z, nil)
		}
		if err != nil {
			return nil, err
		}
		real, err := u.Forward("D", x, nil)
		if err != nil {
			return nil, err
		}
		fakeOut, err := u.Forward("D", fake, nil)
		if err != nil {
			return nil, err
		}
		return nn.SoftplusLoss(u.LossScale(), []*gorgonia.Node{real, fakeOut}, []float64{-1, 1})
	}
	fake, err := u.Forward("G", z, nil)
	if err != nil {
		return nil, err
	}
	out, err := u.Forward("D", fake, nil)
	if err != nil {
		return nil, err
	}
	switch m.share {
	case "ok", "undeclared":
		err = u.Share("fake", fake)
	case "shape":
		err = u.Share("fake", z)
	case "twice":
		if err = u.Share("fake", fake); err == nil {
			err = u.Share("fake", fake)
		}
	case "d-output":
		// D's output depends on D's parameters, which the D update
		// changes before the G update runs.
		err = u.Share("fake", out)
	}
	if err != nil {
		return nil, err
	}
	return nn.SoftplusMean(out, -1, u.LossScale())
}

// TestShare: a D update that reads the fake batch the G update shares
// trains to the same bits as one that runs G itself (same z, same G, so
// the same batch), with one forward pass of G a step instead of two.
func TestShare(t *testing.T) {
	ds := toyData(t, 40, 4, 1)
	run := func(share string) map[string][]float32 {
		tr, err := gan.NewTrainer(&mlpGAN{size: 16, share: share}, []datasets.Dataset{ds}, gan.Options{Batch: 8, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			if _, err := tr.TrainStep(); err != nil {
				t.Fatal(err)
			}
		}
		return goldenTensors(tr)
	}
	want, got := run(""), run("ok")
	for name, w := range want {
		g := got[name]
		for i := range w {
			if math.Float32bits(g[i]) != math.Float32bits(w[i]) {
				t.Fatalf("%s[%d] = %v with the shared batch, %v without", name, i, g[i], w[i])
			}
		}
	}
}

func TestShareErrors(t *testing.T) {
	ds := toyData(t, 40, 4, 1)
	for _, c := range []struct{ share, want string }{
		{"undeclared", "does not declare"},
		{"shape", "shape"},
		{"twice", "twice"},
		{"d-output", "D's parameters"},
	} {
		_, err := gan.NewTrainer(&mlpGAN{size: 16, share: c.share}, []datasets.Dataset{ds}, gan.Options{Batch: 8, Seed: 3})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.share, err, c.want)
		}
	}
}
