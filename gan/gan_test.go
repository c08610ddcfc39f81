package gan

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

// toyData returns n images of side×side: class 0 a bright left half, class
// 1 a bright top half, with noise: easy for a discriminator to tell from
// a generator's first attempts.
func toyData(t testing.TB, n, side, channels int) *datasets.Set {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	sh := datasets.Shape{C: channels, H: side, W: side}
	pix := make([]uint8, n*sh.Size())
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		for c := 0; c < channels; c++ {
			for y := 0; y < side; y++ {
				for x := 0; x < side; x++ {
					on := (labels[i] == 0 && x < side/2) || (labels[i] == 1 && y < side/2)
					v := rng.IntN(40)
					if on {
						v += 200
					}
					pix[i*sh.Size()+(c*side+y)*side+x] = uint8(v)
				}
			}
		}
	}
	s, err := datasets.NewSet("toy", sh, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tinyCGAN() models.Config {
	return models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 8, Width: 8, Features: 8}
}

func tinyDCGAN() models.Config {
	return models.Config{Arch: models.DCGAN, ZDim: 8, Channels: 1, Height: 8, Width: 8, Features: 4}
}

func mustPolicy(t testing.TB, name string) *quant.Policy {
	t.Helper()
	p, err := quant.ParsePolicy(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A short run of each model on toy data: the losses are finite and move,
// and the discriminator learns to tell real from fake (its loss falls
// below the ln 4 of a discriminator that cannot).
func TestTrainingMovesLosses(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    models.Config
		policy string
	}{
		{"cgan-fp32", tinyCGAN(), "fp32"},
		{"cgan-posit8+", tinyCGAN(), "posit8+"},
		{"dcgan-fp32", tinyDCGAN(), "fp32"},
		{"dcgan-posit8+", tinyDCGAN(), "posit8+"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := toyData(t, 64, 8, 1)
			tr, err := NewTrainer(ds, Options{Config: c.cfg, Policy: mustPolicy(t, c.policy), Batch: 16, Seed: 3, LR: 2e-3})
			if err != nil {
				t.Fatal(err)
			}
			before := clone(tr.Model().G.Params()[0].Data())
			var first, last StepStats
			minD := math.Inf(1)
			for i := 0; i < 25; i++ {
				st, err := tr.TrainStep()
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = st
				}
				last = st
				minD = math.Min(minD, st.DLoss)
				if math.IsNaN(st.DLoss) || math.IsInf(st.GLoss, 0) {
					t.Fatalf("step %d: losses %v %v", st.Step, st.DLoss, st.GLoss)
				}
			}
			if first.DLoss == last.DLoss || first.GLoss == last.GLoss {
				t.Errorf("losses did not move: D %v → %v, G %v → %v", first.DLoss, last.DLoss, first.GLoss, last.GLoss)
			}
			if minD >= math.Log(4) {
				t.Errorf("D loss never fell below ln 4 = %.4f (minimum %.4f)", math.Log(4), minD)
			}
			if after := tr.Model().G.Params()[0].Data(); after[0] == before[0] && after[1] == before[1] {
				t.Errorf("G's first weights did not change")
			}
			t.Logf("D %.4f → %.4f (min %.4f), G %.4f → %.4f, D(x) %.3f D(G(z)) %.3f",
				first.DLoss, last.DLoss, minD, first.GLoss, last.GLoss, last.DReal, last.DFake)
		})
	}
}

func sameBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// Training 2n steps straight and training n, saving a checkpoint to disk,
// resuming from it and training n more give the same bits: parameters,
// Adam moments, loss scales and the next losses.
func TestResumeBitExact(t *testing.T) {
	for _, c := range []struct {
		name      string
		cfg       models.Config
		policy    string
		biasEvery int
	}{
		{"cgan-fp32", tinyCGAN(), "fp32", 0},
		{"cgan-posit8+-biases", tinyCGAN(), "posit8+", 2},
		{"dcgan-posit8+", tinyDCGAN(), "posit8+", 0},
		{"cgan-posit8+-stochastic", tinyCGAN(), "posit8+ stochastic", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := toyData(t, 40, 8, 1) // 40/16: the loader wraps into epoch 1
			name, stoch := strings.CutSuffix(c.policy, " stochastic")
			pol := mustPolicy(t, name)
			if stoch {
				if err := pol.Apply("rounding=stochastic"); err != nil {
					t.Fatal(err)
				}
			}
			opt := Options{Config: c.cfg, Policy: pol, Batch: 16, Seed: 9, BiasEvery: c.biasEvery}
			const n = 3
			straight, err := NewTrainer(ds, opt)
			if err != nil {
				t.Fatal(err)
			}
			var want []StepStats
			for i := 0; i < 2*n; i++ {
				if i == n {
					if _, err := straight.Checkpoint(); err != nil {
						t.Fatal(err)
					}
				}
				st, err := straight.TrainStep()
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, st)
			}

			first, err := NewTrainer(ds, opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				if _, err := first.TrainStep(); err != nil {
					t.Fatal(err)
				}
			}
			ck, err := first.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "c.safetensors")
			if err := ckpt.Save(path, ck); err != nil {
				t.Fatal(err)
			}
			loaded, err := ckpt.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			resumed, err := Resume(loaded, ds)
			if err != nil {
				t.Fatal(err)
			}
			if resumed.Step() != n {
				t.Fatalf("resumed at step %d, want %d", resumed.Step(), n)
			}
			for i := n; i < 2*n; i++ {
				st, err := resumed.TrainStep()
				if err != nil {
					t.Fatal(err)
				}
				if st != want[i] {
					t.Errorf("step %d: resumed %+v, straight %+v", i+1, st, want[i])
				}
			}
			sp, rp := straight.Model().Params(), resumed.Model().Params()
			for i := range sp {
				if j := sameBits(sp[i].Data(), rp[i].Data()); j >= 0 {
					t.Errorf("%s[%d]: straight %v, resumed %v", sp[i].Name, j, sp[i].Data()[j], rp[i].Data()[j])
				}
			}
			for i := range straight.adamG.M {
				if j := sameBits(straight.adamG.M[i], resumed.adamG.M[i]); j >= 0 {
					t.Errorf("Adam G m %d differs at %d", i, j)
				}
				if j := sameBits(straight.adamG.V[i], resumed.adamG.V[i]); j >= 0 {
					t.Errorf("Adam G v %d differs at %d", i, j)
				}
			}
			if c.biasEvery > 0 {
				t.Logf("biases: %v", straight.Biases())
			}
		})
	}
}

// A checkpoint written and read back holds the same tensors and state.
func TestCheckpointRoundTrip(t *testing.T) {
	ds := toyData(t, 32, 8, 1)
	tr, err := NewTrainer(ds, Options{Config: tinyCGAN(), Policy: mustPolicy(t, "posit8+"), Batch: 8, Seed: 5, BiasEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.safetensors")
	if err := ckpt.Save(path, ck); err != nil {
		t.Fatal(err)
	}
	back, err := ckpt.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadState(back)
	if err != nil {
		t.Fatal(err)
	}
	if s.Step != 2 || s.Options.Config != tinyCGAN() || s.Options.Batch != 8 || s.Options.Seed != 5 || s.Options.BiasEvery != 1 {
		t.Errorf("state %+v", s)
	}
	if got, want := s.Options.Policy.String(), tr.Options().Policy.String(); got != want {
		t.Errorf("policy:\n%s\nwant\n%s", got, want)
	}
	if len(s.Biases) != len(tr.Biases()) {
		t.Errorf("biases %v, want %v", s.Biases, tr.Biases())
	}
	m, _, err := LoadGAN(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Params() {
		if j := sameBits(p.Data(), tr.Model().Params()[i].Data()); j >= 0 {
			t.Errorf("%s differs at %d", p.Name, j)
		}
	}
	for _, l := range m.Layers() {
		if got, want := tr.Formats(l).Weight, tr.Options().Policy.For(l).Weight; s.Biases[l][0] != 0 && got == want {
			t.Errorf("layer %s: bias %v not applied to %v", l, s.Biases[l], got)
		}
	}
}

// Run writes the log, the grids and the checkpoint, and stops early with
// ErrInterrupted (after writing them) when its context is cancelled.
func TestRunWritesOutputs(t *testing.T) {
	ds := toyData(t, 32, 8, 1)
	tr, err := NewTrainer(ds, Options{Config: tinyCGAN(), Batch: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := 0
	sum, err := tr.Run(ctx, RunOptions{Dir: dir, Steps: 10, SampleEvery: 2, CheckpointEvery: 3, OnStep: func(st StepStats, _ time.Duration) {
		steps++
		if st.Step == 4 {
			cancel()
		}
	}})
	_ = sum
	if err != ErrInterrupted {
		t.Fatalf("Run: %v, want ErrInterrupted", err)
	}
	for _, f := range []string{"log.csv", "samples_000002.png", "samples.png", "checkpoint.safetensors"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	ck, err := ckpt.Load(filepath.Join(dir, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := ReadState(ck); s.Step != 4 {
		t.Errorf("checkpoint at step %d, want 4", s.Step)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log.csv"))
	if lines := len(splitLines(string(log))); lines != 5 {
		t.Errorf("log has %d lines, want header + 4:\n%s", lines, log)
	}
}

func splitLines(s string) []string {
	var ls []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		ls = append(ls, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return ls
}

// An absurd loss scale saturates the 8-bit weight gradients: dynamic loss
// scaling skips those updates and backs off until the gradients fit, then
// applies updates again.
func TestDynamicLossScaleBacksOff(t *testing.T) {
	pol := mustPolicy(t, "posit8+")
	pol.LossScale = quant.LossScale{Scale: 0x1p40, Dynamic: true}
	tr, err := NewTrainer(toyData(t, 32, 8, 1), Options{Config: tinyCGAN(), Policy: pol, Batch: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	before := clone(tr.Model().D.Params()[0].Data())
	st, err := tr.TrainStep()
	if err != nil {
		t.Fatal(err)
	}
	if !st.SkippedD || !st.SkippedG {
		t.Fatalf("first step at scale 2^40 not skipped: %+v", st)
	}
	if j := sameBits(before, tr.Model().D.Params()[0].Data()); j >= 0 {
		t.Errorf("skipped step changed D's weights")
	}
	applied := false
	for i := 0; i < 60 && !applied; i++ {
		if st, err = tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
		applied = !st.SkippedD && !st.SkippedG
	}
	if !applied || st.ScaleD >= 0x1p40 || st.ScaleG >= 0x1p40 {
		t.Errorf("no update applied after backing off: %+v", st)
	}
	t.Logf("first good step %d at scales D %g, G %g", st.Step, st.ScaleD, st.ScaleG)
}
