package models

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/quant"
)

// The assembled networks' gradients (nn layers, batch norm, activations,
// label concatenation, loss) agree with finite differences, through D
// into G as in the generator's step.
func TestNetworkGradients(t *testing.T) {
	for _, cfg := range []Config{
		{Arch: CGAN, ZDim: 3, Classes: 2, Channels: 1, Height: 2, Width: 2, Features: 2},
		{Arch: DCGAN, ZDim: 3, Channels: 1, Height: 8, Width: 8, Features: 2},
	} {
		m, err := build(cfg, nil, 1, tensor.Float64)
		if err != nil {
			t.Fatal(err)
		}
		err = gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(5, 6))
			const batch = 3
			z := randNode(g, "z", rng, cfg.ZShape(batch)...)
			var y *gorgonia.Node
			if cfg.Classes > 0 {
				y = gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(batch, 2), tensor.WithBacking([]float64{1, 0, 0, 1, 1, 0})), gorgonia.WithName("y"))
			}
			G, D := m.G.Share(g), m.D.Share(g)
			x, err := G.Fwd(z, y)
			if err != nil {
				return nil, nil, err
			}
			if !x.Shape().Eq(cfg.XShape(batch)) {
				t.Errorf("%s: G makes %v, want %v", cfg.Arch, x.Shape(), cfg.XShape(batch))
			}
			logit, err := D.Fwd(x, y)
			if err != nil {
				return nil, nil, err
			}
			loss, err := SoftplusMean(logit, -1, nil)
			wrt := []*gorgonia.Node{z}
			for _, p := range append(G.Params(), D.Params()...) {
				wrt = append(wrt, p.Node)
			}
			return loss, wrt, err
		}, &gradcheck.Options{Step: 1e-6, RelTol: 1e-4, AbsTol: 1e-7})
		if err != nil {
			t.Errorf("%s: %v", cfg.Arch, err)
		}
	}
}

func TestLayersAndFormats(t *testing.T) {
	pol, err := quant.ParsePolicy("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.Apply("G/fc5:out=posit(16,1)"); err != nil {
		t.Fatal(err)
	}
	var asked []string
	f := func(layer string) quant.LayerFormats {
		asked = append(asked, layer)
		return pol.For(layer)
	}
	cfg, err := DefaultConfig(CGAN, 1, 28, 28, 10)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg, f, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"G/fc1", "G/fc2", "G/fc3", "G/fc4", "G/fc5", "D/fc1", "D/fc2", "D/fc3", "D/fc4", "D/embed"}
	if got := m.Layers(); !slices.Equal(got, want) {
		t.Errorf("layers %v, want %v", got, want)
	}
	if !slices.Equal(asked, want) {
		t.Errorf("formats asked for %v, want %v", asked, want)
	}
	// Sizes of the standard CGAN: G 110-138-266-522-1034-784, D 794-522-522-522-1.
	sizes := map[string]int{}
	for _, p := range m.Params() {
		sizes[p.Name] = len(p.Data())
	}
	for name, n := range map[string]int{"G/fc1.w": 110 * 128, "G/fc5.w": 1034 * 784, "G/bn2.gamma": 256, "D/fc1.w": 794 * 512, "D/fc4.w": 522} {
		if sizes[name] != n {
			t.Errorf("%s has %d values, want %d", name, sizes[name], n)
		}
	}

	d64, err := DefaultConfig(DCGAN, 3, 64, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err = New(d64, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"G/deconv1", "G/deconv2", "G/deconv3", "G/deconv4", "G/deconv5", "D/conv1", "D/conv2", "D/conv3", "D/conv4", "D/conv5"}
	if got := m.Layers(); !slices.Equal(got, want) {
		t.Errorf("dcgan 64 layers %v, want %v", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Arch: "vae", ZDim: 1, Channels: 1, Height: 28, Width: 28, Features: 1}, "unknown architecture"},
		{Config{Arch: DCGAN, ZDim: 1, Channels: 1, Height: 30, Width: 30, Features: 1}, "side 30"},
		{Config{Arch: DCGAN, ZDim: 1, Channels: 1, Height: 28, Width: 32, Features: 1}, "square"},
		{Config{Arch: CGAN, ZDim: 1, Channels: 1, Height: 28, Width: 28, Features: 1, Classes: 1}, "2 classes"},
		{Config{Arch: CGAN, ZDim: 0, Channels: 1, Height: 28, Width: 28, Features: 1, Classes: 10}, "positive"},
		{Config{Arch: DCGAN, ZDim: 1, Channels: 2, Height: 28, Width: 28, Features: 1}, "channels"},
	} {
		if err := c.cfg.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
	c, err := DefaultConfig(DCGAN, 1, 28, 28, 0)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(c.String())
	if err != nil || back != c {
		t.Errorf("ParseConfig(%s) = %+v, %v", c, back, err)
	}
}
