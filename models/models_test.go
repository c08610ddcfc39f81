package models_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// groups builds cfg's networks in a new graph with formats f, seed 1 and
// element type dt.
func groups(t *testing.T, cfg models.Config, f nn.Formats, dt tensor.Dtype) (gan.Model, []gan.Group) {
	t.Helper()
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := nn.NewScope(gorgonia.NewGraph(), f, 1, nn.WithDtype(dt))
	gs, err := m.Build(s)
	if err == nil {
		err = s.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	return m, gs
}

func layers(gs []gan.Group) []string {
	var ls []string
	for _, g := range gs {
		ls = append(ls, nn.Layers(g.Net)...)
	}
	return ls
}

// The assembled networks' gradients (nn layers, batch norm, activations,
// label concatenation, projection, loss) agree with finite differences,
// through D into G as in the generator's step.
func TestNetworkGradients(t *testing.T) {
	for _, cfg := range []models.Config{
		{Arch: models.CGAN, ZDim: 3, Classes: 2, Channels: 1, Height: 2, Width: 2, Features: 2},
		{Arch: models.DCGAN, ZDim: 3, Channels: 1, Height: 8, Width: 8, Features: 2},
	} {
		m, gs := groups(t, cfg, nil, tensor.Float64)
		spec := m.(gan.Generator).Generator()
		err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(5, 6))
			const batch = 3
			z := randNode(g, "z", rng, append([]int{batch}, spec.Z...)...)
			var y *gorgonia.Node
			if cfg.Classes > 0 {
				y = gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(batch, 2), tensor.WithBacking([]float64{1, 0, 0, 1, 1, 0})), gorgonia.WithName("y"))
			}
			G, D := gs[0].Net.Share(g), gs[1].Net.Share(g)
			p := &nn.Pass{Cond: y}
			x, err := G.Forward(p, z)
			if err != nil {
				return nil, nil, err
			}
			if x.Shape().TotalSize() != batch*cfg.ImageSize() {
				t.Errorf("%s: G makes %v", cfg.Arch, x.Shape())
			}
			logit, err := D.Forward(p, x)
			if err != nil {
				return nil, nil, err
			}
			loss, err := nn.SoftplusMean(logit, -1, nil)
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

func randNode(g *gorgonia.ExprGraph, name string, rng *rand.Rand, shape ...int) *gorgonia.Node {
	t := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(shape...))
	for i, d := 0, t.Data().([]float64); i < len(d); i++ {
		d[i] = rng.NormFloat64()
	}
	return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name))
}

func TestLayersAndFormats(t *testing.T) {
	pol, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.Apply("G/fc5:out=posit(16,1)"); err != nil {
		t.Fatal(err)
	}
	var asked []string
	f := func(layer string) nn.LayerFormats {
		asked = append(asked, layer)
		return pol.For(layer)
	}
	cfg, err := models.DefaultConfig(models.CGAN, datasets.Shape{C: 1, H: 28, W: 28}, 10)
	if err != nil {
		t.Fatal(err)
	}
	_, gs := groups(t, cfg, f, tensor.Float32)
	want := []string{"G/fc1", "G/fc2", "G/fc3", "G/fc4", "G/fc5", "D/fc1", "D/fc2", "D/fc3", "D/fc4", "D/embed"}
	if got := layers(gs); !slices.Equal(got, want) {
		t.Errorf("layers %v, want %v", got, want)
	}
	// The layers with an Other role (norms, activations: issue 19) are
	// asked for their formats too; the quantized ones in order.
	var dot []string
	for _, l := range asked {
		if slices.Contains(want, l) {
			dot = append(dot, l)
		}
	}
	if !slices.Equal(dot, want) {
		t.Errorf("formats asked for %v, want %v among them", asked, want)
	}
	// Sizes of the standard CGAN: G 110-138-266-522-1034-784, D 794-522-522-522-1.
	sizes := map[string]int{}
	for _, g := range gs {
		for _, p := range g.Net.Params() {
			sizes[p.Name] = len(p.Data())
		}
		for _, b := range g.Net.Buffers() {
			sizes[b.Name] = len(b.Data())
		}
	}
	for name, n := range map[string]int{"G/fc1.w": 110 * 128, "G/fc5.w": 1034 * 784, "G/bn2.gamma": 256,
		"G/bn2.running_mean": 256, "G/bn4.running_var": 1024, "D/fc1.w": 794 * 512, "D/fc4.w": 522} {
		if sizes[name] != n {
			t.Errorf("%s has %d values, want %d", name, sizes[name], n)
		}
	}

	d64, err := models.DefaultConfig(models.DCGAN, datasets.Shape{C: 3, H: 64, W: 64}, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, gs = groups(t, d64, nil, tensor.Float32)
	want = []string{"G/deconv1", "G/deconv2", "G/deconv3", "G/deconv4", "G/deconv5", "D/conv1", "D/conv2", "D/conv3", "D/conv4", "D/conv5"}
	if got := layers(gs); !slices.Equal(got, want) {
		t.Errorf("dcgan 64 layers %v, want %v", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  models.Config
		want string
	}{
		{models.Config{Arch: "vae", ZDim: 1, Channels: 1, Height: 28, Width: 28, Features: 1}, `unknown model "vae" (registered: cgan, cyclegan, dcgan`},
		{models.Config{Arch: models.DCGAN, ZDim: 1, Channels: 1, Height: 30, Width: 30, Features: 1}, "side 30"},
		{models.Config{Arch: models.DCGAN, ZDim: 1, Channels: 1, Height: 28, Width: 32, Features: 1}, "square"},
		{models.Config{Arch: models.CGAN, ZDim: 1, Channels: 1, Height: 28, Width: 28, Features: 1, Classes: 1}, "2 classes"},
		{models.Config{Arch: models.CGAN, ZDim: 0, Channels: 1, Height: 28, Width: 28, Features: 1, Classes: 10}, "positive"},
		{models.Config{Arch: models.DCGAN, ZDim: 1, Channels: 2, Height: 28, Width: 28, Features: 1}, "channels"},
		{models.Config{Arch: models.CGAN, ZDim: 1, Channels: 1, Height: 28, Width: 28, Features: 1, Classes: 10, Tanh: "cubic"}, "output activation"},
	} {
		if err := c.cfg.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
	c, err := models.DefaultConfig(models.DCGAN, datasets.Shape{C: 1, H: 28, W: 28}, 0)
	if err != nil {
		t.Fatal(err)
	}
	back, err := models.ParseConfig(c.String())
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Errorf("ParseConfig(%s) = %+v, %v", c, back, err)
	}
}

// The registry lists the models and refuses a second registration of a
// name and an incomplete Spec.
func TestRegistry(t *testing.T) {
	if got := models.Names(); !slices.Contains(got, "cgan") || !slices.Contains(got, "dcgan") {
		t.Errorf("Names() = %v", got)
	}
	for _, s := range []models.Spec{
		{Name: "cgan", Default: func(datasets.Shape, int) models.Config { return models.Config{} }, New: func(models.Config) (gan.Model, error) { return nil, nil }},
		{Name: "bad name", Default: func(datasets.Shape, int) models.Config { return models.Config{} }, New: func(models.Config) (gan.Model, error) { return nil, nil }},
		{Name: "nothing"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", s.Name)
				}
			}()
			models.Register(s)
		}()
	}
}
