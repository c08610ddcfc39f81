package models_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// tinyCycleGAN is a CycleGAN small enough to train in a test: 8x8 gray
// images, 4 features, one residual block, a pool of 3 images.
func tinyCycleGAN(t *testing.T) models.Config {
	t.Helper()
	cfg, err := models.DefaultConfig(models.CycleGAN, datasets.Shape{C: 1, H: 8, W: 8}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options["blocks"] = "1"
	cfg.Options["pool"] = "3"
	return cfg
}

// stripes returns n 8x8 images of horizontal or vertical stripes at
// random phases.
func stripes(t *testing.T, n int, vertical bool) datasets.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	pix := make([]uint8, n*64)
	for i := range n {
		ph := rng.IntN(3)
		for y := range 8 {
			for x := range 8 {
				v := y
				if vertical {
					v = x
				}
				if (v+ph)%3 == 0 {
					pix[i*64+y*8+x] = 220
				}
			}
		}
	}
	s, err := datasets.NewSet("stripes", datasets.Shape{C: 1, H: 8, W: 8}, pix, make([]int, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCycleGANConfig(t *testing.T) {
	for _, tc := range []struct {
		side, features, blocks, dLayers int
	}{{28, 16, 3, 1}, {32, 16, 3, 1}, {64, 32, 6, 2}, {128, 64, 6, 3}, {256, 64, 9, 3}} {
		cfg, err := models.DefaultConfig(models.CycleGAN, datasets.Shape{C: 3, H: tc.side, W: tc.side}, 0)
		if err != nil {
			t.Fatalf("%d: %v", tc.side, err)
		}
		if cfg.Features != tc.features || cfg.Options["blocks"] != itoa(tc.blocks) {
			t.Errorf("side %d: features %d, blocks %s; want %d, %d", tc.side, cfg.Features, cfg.Options["blocks"], tc.features, tc.blocks)
		}
		_, gs := groups(t, cfg, nil, tensor.Float32)
		names := []string{}
		for _, g := range gs {
			names = append(names, g.Name)
		}
		if !slices.Equal(names, []string{"G_AB", "G_BA", "D_A", "D_B"}) {
			t.Errorf("groups %v", names)
		}
		// The last discriminator layer is conv<d_layers+2>.
		last := nn.Layers(gs[2].Net)
		if want := "D_A/conv" + itoa(tc.dLayers+2); last[len(last)-1] != want {
			t.Errorf("side %d: last D layer %s, want %s", tc.side, last[len(last)-1], want)
		}
	}
	cfg := tinyCycleGAN(t)
	for _, bad := range []func(c *models.Config){
		func(c *models.Config) { c.Height, c.Width = 10, 10 },
		func(c *models.Config) { c.Options = map[string]string{"d_layers": "3"} },
		func(c *models.Config) { c.Options = map[string]string{"lambda": "ten"} },
		func(c *models.Config) { c.Classes = 10 },
	} {
		c := cfg
		c.Options = map[string]string{}
		bad(&c)
		if _, err := models.New(c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// The 256x256 generator has the layer sizes of Zhu et al.'s: 11.378M
// parameters per generator (ngf 64, 9 blocks), 2.765M per discriminator.
func TestCycleGANParameterCount(t *testing.T) {
	cfg, err := models.DefaultConfig(models.CycleGAN, datasets.Shape{C: 3, H: 256, W: 256}, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, gs := groups(t, cfg, nil, tensor.Float32)
	count := func(g gan.Group) int {
		n := 0
		for _, p := range g.Net.Params() {
			n += p.Node.Shape().TotalSize()
		}
		return n
	}
	// PyTorch's counts include the (unused) affine parameters of
	// nothing: CycleGAN's instance norms have none.
	if n := count(gs[0]); n != 11378179 {
		t.Errorf("G_AB has %d parameters, want 11378179", n)
	}
	if n := count(gs[2]); n != 2764737 {
		t.Errorf("D_A has %d parameters, want 2764737", n)
	}
}

// The generators and discriminators, with the output padding of the
// upsamplings, reflection padding and instance norm, pass a float64
// gradient check of a cycle + adversarial loss.
func TestCycleGANGradient(t *testing.T) {
	cfg := tinyCycleGAN(t)
	cfg.Features = 2
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		m, err := models.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		s := nn.NewScope(g, nil, 1, nn.WithDtype(tensor.Float64))
		gs, err := m.Build(s)
		if err != nil {
			return nil, nil, err
		}
		var params []*gorgonia.Node
		for _, gr := range gs {
			for _, p := range gr.Net.Params() {
				if p.Node.Shape().Dims() > 1 { // weights 20x larger than 0.02: less round-off
					d := p.Node.Value().Data().([]float64)
					for i := range d {
						d[i] *= 20
					}
				}
				params = append(params, p.Node)
			}
		}
		rng := rand.New(rand.NewPCG(7, 8))
		x := tensor.New(tensor.WithShape(2, 1, 8, 8), tensor.WithBacking(func() []float64 {
			v := make([]float64, 128)
			for i := range v {
				v[i] = 2*rng.Float64() - 1
			}
			return v
		}()))
		a := gorgonia.NodeFromAny(g, x, gorgonia.WithName("a"))
		fake, err := gs[0].Net.Forward(&nn.Pass{}, a)
		if err != nil {
			return nil, nil, err
		}
		rec, err := gs[1].Net.Forward(&nn.Pass{}, fake)
		if err != nil {
			return nil, nil, err
		}
		d, err := gs[3].Net.Forward(&nn.Pass{}, fake)
		if err != nil {
			return nil, nil, err
		}
		dA, err := gs[2].Net.Forward(&nn.Pass{}, a)
		if err != nil {
			return nil, nil, err
		}
		// MSE against 0.3 rather than L1 for the cycle term: L1's kink
		// at equality is not differentiable.
		l1, err := nn.MSELoss(rec, a, nil)
		if err != nil {
			return nil, nil, err
		}
		l2, err := nn.MSETarget(d, 1, nil)
		if err != nil {
			return nil, nil, err
		}
		l3, err := nn.MSETarget(dA, 0.3, nil)
		if err != nil {
			return nil, nil, err
		}
		loss, err := nn.WeightedSum([]float64{10, 1, 1}, l1, l2, l3)
		return loss, params, err
	}, &gradcheck.Options{Step: 1e-6, RelTol: 1e-4, AbsTol: 1e-7})
	if err != nil {
		t.Error(err)
	}
}

func newCycleTrainer(t *testing.T, cfg models.Config, pol *policy.Policy, steps int) *gan.Trainer {
	t.Helper()
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{stripes(t, 12, false), stripes(t, 10, true)},
		gan.Options{Policy: pol, Batch: 2, Seed: 3, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A few steps move all three updates' losses, every term of them and
// every group's parameters (G_AB, G_BA, D_A, D_B); the pools fill with
// the generators' images.
func TestCycleGANTrains(t *testing.T) {
	cfg := tinyCycleGAN(t)
	tr := newCycleTrainer(t, cfg, nil, 6)
	if got := tr.LogColumns()[:3]; !slices.Equal(got, []string{"g_loss", "d_a_loss", "d_b_loss"}) {
		t.Errorf("log columns %v", got)
	}
	before := map[string][]float32{}
	for _, g := range tr.Nets().Groups {
		for _, p := range g.Net.Params() {
			before[g.Name] = append(before[g.Name], p.Data()...)
		}
	}
	var first, last gan.StepStats
	for i := range 6 {
		st, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = st
		}
		last = st
	}
	for i, u := range []string{"G", "D_A", "D_B"} {
		if first.Losses[i] == last.Losses[i] || math.IsNaN(last.Losses[i]) || last.Skipped[i] {
			t.Errorf("update %s: loss %g then %g (skipped %v)", u, first.Losses[i], last.Losses[i], last.Skipped[i])
		}
	}
	for i, name := range tr.Model().Metrics() {
		if math.IsNaN(last.Metrics[i]) || (name[:1] != "d" && last.Metrics[i] <= 0) {
			t.Errorf("metric %s = %g", name, last.Metrics[i])
		}
		// Each term of the losses moves: both adversarial, both cycle
		// and both identity terms, and the discriminators' outputs.
		if first.Metrics[i] == last.Metrics[i] {
			t.Errorf("metric %s stayed at %g", name, last.Metrics[i])
		}
	}
	for _, g := range tr.Nets().Groups {
		var after []float32
		for _, p := range g.Net.Params() {
			after = append(after, p.Data()...)
		}
		if slices.Equal(before[g.Name], after) {
			t.Errorf("group %s did not change", g.Name)
		}
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"model.state/pool_A", "model.state/pool_B"} {
		if p, ok := c.Tensors[name]; !ok || !slices.Equal(p.Shape, []int{3, 1, 8, 8}) {
			t.Errorf("%s: %v", name, p.Shape)
		}
	}
}

// relayRecorder records what a Relay model passes between updates and
// the G_AB output an applier computes from the same parameters.
type relayRecorder struct {
	gan.Model
	ab           *gan.Applier
	fake, pooled []float32
	applied      []float32
}

func (r *relayRecorder) AfterUpdate(u gan.Update, out map[string][]float32, in gan.Inputs, noise *rand.Rand) {
	r.Model.(gan.Relay).AfterUpdate(u, out, in, noise)
	if u.Name == "G" {
		r.fake, r.pooled = slices.Clone(out["fake_B"]), slices.Clone(in["pool_B"])
		r.applied = make([]float32, r.ab.OutSize())
		if err := r.ab.Apply(r.applied, in["A"]); err != nil {
			panic(err)
		}
	}
}

// The images the generators make in the G update reach the
// discriminators: without a pool D_B sees exactly G_AB(A) of the step;
// with one, while it fills.
func TestCycleGANPoolFeedsDiscriminators(t *testing.T) {
	for _, pool := range []string{"0", "3"} {
		cfg := tinyCycleGAN(t)
		cfg.Options["pool"] = pool
		m, err := models.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := &relayRecorder{Model: m}
		tr, err := gan.NewTrainer(r, []datasets.Dataset{stripes(t, 12, false), stripes(t, 10, true)},
			gan.Options{Batch: 2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.ab, err = gan.NewApplier(tr.Nets(), "G_AB", []int{2, 1, 8, 8}); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
		if len(r.fake) != 128 || !slices.Equal(r.fake, r.pooled) || !slices.Equal(r.fake, r.applied) {
			t.Errorf("pool %s: fake_B %v\npooled %v\napplied %v", pool, r.fake[:4], r.pooled[:4], r.applied[:4])
		}
	}
}

// A run resumed from a checkpoint (parameters, Adam, pools, data order,
// the pools' random draws, the learning-rate schedule) takes the same
// steps as the run that saved it, bit for bit.
func TestCycleGANResume(t *testing.T) {
	cfg := tinyCycleGAN(t)
	pol, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	const steps = 8
	full := newCycleTrainer(t, cfg, pol, steps)
	half := newCycleTrainer(t, cfg, pol, steps)
	for range steps / 2 {
		if _, err := full.TrainStep(); err != nil {
			t.Fatal(err)
		}
		if _, err := half.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "c.safetensors")
	c, err := half.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if err := ckpt.Save(path, c); err != nil {
		t.Fatal(err)
	}
	if c, err = ckpt.Load(path); err != nil {
		t.Fatal(err)
	}
	resumed, err := models.Resume(c, stripes(t, 12, false), stripes(t, 10, true))
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Options().Steps != steps {
		t.Errorf("resumed run plans %d steps, want %d", resumed.Options().Steps, steps)
	}
	for range steps / 2 {
		a, err := full.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		b, err := resumed.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Losses, b.Losses) {
			t.Fatalf("step %d: losses %v, resumed %v", a.Step, a.Losses, b.Losses)
		}
	}
	ca, err := full.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	cb, err := resumed.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if len(ca.Tensors) != len(cb.Tensors) {
		t.Fatalf("%d tensors, resumed %d", len(ca.Tensors), len(cb.Tensors))
	}
	for name, ta := range ca.Tensors {
		if !slices.Equal(ta.Data, cb.Tensors[name].Data) {
			t.Errorf("%s differs after resuming", name)
		}
	}
	if full.Adam("G_AB").LR == 2e-4 || full.Adam("G_AB").LR != resumed.Adam("G_AB").LR {
		t.Errorf("learning rate %g, resumed %g: want the decayed rate", full.Adam("G_AB").LR, resumed.Adam("G_AB").LR)
	}

	// Run writes the six-row grids of both directions.
	dir := t.TempDir()
	sum, err := resumed.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: steps + 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Samples == "" {
		t.Fatal("no sample grid")
	}
}

// The archive's inference preset keeps the generators' first and last
// convolutions in P(16,1) and puts the others' operands in P(8,1).
func TestCycleGANInferencePreset(t *testing.T) {
	pol, err := policy.Parse("cyclegan-posit8-infer")
	if err != nil {
		t.Fatal(err)
	}
	_, gs := groups(t, tinyCycleGAN(t), nil, tensor.Float32)
	layers := nn.Layers(gs[0].Net)
	if !slices.Contains(layers, "G_AB/in") || !slices.Contains(layers, "G_AB/out") {
		t.Fatalf("layers %v", layers)
	}
	for _, l := range layers {
		f := pol.For(l)
		want := "posit(8,1)"
		if l == "G_AB/in" || l == "G_AB/out" {
			want = "posit(16,1)"
		}
		if f.Act.String() != want || f.Out.String() != "posit(16,1)" {
			t.Errorf("%s: act %v, out %v; want act %s", l, f.Act, f.Out, want)
		}
	}
	if unmatched := pol.Unmatched(layers); len(unmatched) > 0 {
		t.Errorf("globs match no layer: %v", unmatched)
	}
}
