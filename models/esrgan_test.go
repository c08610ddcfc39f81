package models

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
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// tinyESRGAN is an ESRGAN small enough to train in a test: 16x16 patches
// at scale 2, 4 features, one RRDB of growth 2, pre-training for pretrain
// steps.
func tinyESRGAN(t *testing.T, pretrain string) Config {
	t.Helper()
	cfg, err := DefaultConfig(ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": "2", "blocks": "1", "gc": "2", "pretrain": pretrain}
	return cfg
}

// blobs returns n smooth 16x16 colour images.
func blobs(t *testing.T, n int) datasets.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 10))
	pix := make([]uint8, n*3*256)
	for i := range n {
		fx, fy := rng.Float64()+0.2, rng.Float64()+0.2
		for c := range 3 {
			for y := range 16 {
				for x := range 16 {
					v := 128 + 100*math.Sin(fx*float64(x)+float64(c))*math.Cos(fy*float64(y))
					pix[i*768+c*256+y*16+x] = uint8(v)
				}
			}
		}
	}
	s, err := datasets.NewSet("blobs", datasets.Shape{C: 3, H: 16, W: 16}, pix, make([]int, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestESRGANConfig(t *testing.T) {
	for _, bad := range []map[string]string{{"scale": "3"}, {"blocks": "0"}, {"pretrain": "-1"}, {"gan_weight": "-1"}, {"gc": "x"}} {
		cfg := tinyESRGAN(t, "1")
		for k, v := range bad {
			cfg.Options[k] = v
		}
		if err := cfg.Check(); err == nil {
			t.Errorf("options %v accepted", bad)
		}
	}
	cfg := tinyESRGAN(t, "1")
	cfg.Height = 18
	if err := cfg.Check(); err == nil {
		t.Error("18x16 patch accepted")
	}
	m, err := newESRGAN(tinyESRGAN(t, "1"))
	if err != nil {
		t.Fatal(err)
	}
	if m.levels != 2 { // 16 -> 8 -> 4
		t.Errorf("discriminator levels %d, want 2", m.levels)
	}
}

// The dense block (five convolutions on growing concatenations, residual
// scaling 0.2) and the RRDB around three of them: gradients of the input
// and every parameter against central differences, in float64.
func TestESRGANDenseBlockGradient(t *testing.T) {
	m, err := newESRGAN(tinyESRGAN(t, "1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, which := range []string{"rdb", "rrdb"} {
		err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			s := nn.NewScope(g, nil, 1, nn.WithDtype(tensor.Float64))
			var blk nn.Module
			if which == "rdb" {
				blk = m.denseBlock(s, 3)
			} else {
				blk = m.rrdb(s, 3)
			}
			if err := s.Err(); err != nil {
				return nil, nil, err
			}
			rng := rand.New(rand.NewPCG(3, 4))
			wrt := []*gorgonia.Node{}
			for _, p := range blk.Params() {
				d := p.Node.Value().Data().([]float64)
				for i := range d { // larger than the 0.1-scaled init: less round-off
					d[i] = rng.NormFloat64() * 0.5
				}
				wrt = append(wrt, p.Node)
			}
			xv := make([]float64, 2*3*4*4)
			for i := range xv {
				xv[i] = rng.NormFloat64()
			}
			x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(2, 3, 4, 4), tensor.WithBacking(xv)), gorgonia.WithName("x"))
			y, err := blk.Forward(&nn.Pass{}, x)
			if err != nil {
				return nil, nil, err
			}
			cv := make([]float64, len(xv))
			for i := range cv {
				cv[i] = rng.NormFloat64()
			}
			c := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(2, 3, 4, 4), tensor.WithBacking(cv)), gorgonia.WithName("c"))
			loss, err := nn.MSELoss(y, c, nil)
			return loss, append([]*gorgonia.Node{x}, wrt...), err
		}, &gradcheck.Options{Step: 1e-6, RelTol: 1e-4, AbsTol: 1e-8})
		if err != nil {
			t.Errorf("%s: %v", which, err)
		}
	}
}

func newESRTrainer(t *testing.T, cfg Config, pol *policy.Policy) *gan.Trainer {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{blobs(t, 8)}, gan.Options{Policy: pol, Batch: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func groupData(tr *gan.Trainer, name string) []float32 {
	var d []float32
	for _, p := range tr.Nets().Net(name).Params() {
		d = append(d, p.Data()...)
	}
	return d
}

// Pre-training runs G's L1 update alone, which moves the L1 loss and
// leaves D as it was; from step pretrain on, only the two adversarial
// updates run: D trains and G sees the adversarial term.
func TestESRGANPhases(t *testing.T) {
	tr := newESRTrainer(t, tinyESRGAN(t, "3"), nil)
	if got := tr.LogColumns()[:3]; !slices.Equal(got, []string{"g_psnr_loss", "g_loss", "d_loss"}) {
		t.Errorf("log columns %v", got)
	}
	d0 := groupData(tr, GroupD)
	var sts []gan.StepStats
	for range 7 {
		st, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		sts = append(sts, st)
		if st.Step == 3 && !slices.Equal(d0, groupData(tr, GroupD)) {
			t.Error("D changed during pre-training")
		}
	}
	for i, st := range sts {
		pre, g, d, l1, ganG := st.Losses[0], st.Losses[1], st.Losses[2], st.Metrics[0], st.Metrics[1]
		switch {
		case i < 3 && (pre != l1 || l1 <= 0 || g != 0 || d != 0 || ganG != 0):
			t.Errorf("pre-training step %d: losses %v, metrics %v", st.Step, st.Losses, st.Metrics)
		case i >= 3 && (pre != 0 || d <= 0 || g == l1 || ganG == 0):
			t.Errorf("GAN step %d: losses %v, metrics %v", st.Step, st.Losses, st.Metrics)
		}
	}
	if sts[0].Metrics[0] == sts[6].Metrics[0] || sts[3].Losses[2] == sts[6].Losses[2] {
		t.Errorf("losses did not move: L1 %g -> %g, D %g -> %g", sts[0].Metrics[0], sts[6].Metrics[0], sts[3].Losses[2], sts[6].Losses[2])
	}
	if slices.Equal(d0, groupData(tr, GroupD)) {
		t.Error("D did not change in the GAN phase")
	}
	m, _ := newESRGAN(tinyESRGAN(t, "3"))
	for step, want := range []float64{2e-4, 2e-4, 2e-4, 1e-4, 1e-4} {
		if got := m.LearningRate(GroupG, step, 10, 2e-4); got != want {
			t.Errorf("learning rate at step %d: %g, want %g", step, got, want)
		}
	}
}

// A run resumed from a checkpoint written during pre-training switches to
// the GAN phase at the same step and takes the same steps, bit for bit.
func TestESRGANResume(t *testing.T) {
	cfg := tinyESRGAN(t, "3")
	pol, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	const steps = 6
	full, half := newESRTrainer(t, cfg, pol), newESRTrainer(t, cfg, pol)
	for range 2 {
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
	resumed, err := Resume(c, blobs(t, 8))
	if err != nil {
		t.Fatal(err)
	}
	for range steps - 2 {
		a, err := full.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		b, err := resumed.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Losses, b.Losses) || !slices.Equal(a.Metrics, b.Metrics) {
			t.Fatalf("step %d: losses %v %v, resumed %v %v", a.Step, a.Losses, a.Metrics, b.Losses, b.Metrics)
		}
	}
	ca, _ := full.Checkpoint()
	cb, _ := resumed.Checkpoint()
	for name, ta := range ca.Tensors {
		if !slices.Equal(ta.Data, cb.Tensors[name].Data) {
			t.Errorf("%s differs after resuming", name)
		}
	}
	if got := cb.Tensors["model.state/step"].Data; !slices.Equal(got, []float32{steps}) {
		t.Errorf("saved step count %v, want %d", got, steps)
	}
	// Run writes the four-row grids (LR, bicubic, SR, HR).
	sum, err := resumed.Run(context.Background(), gan.RunOptions{Dir: t.TempDir(), Steps: steps + 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Samples == "" {
		t.Fatal("no sample grid")
	}
}
