package gan_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

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
			tr := newTrainer(t, c.cfg, ds, gan.Options{Policy: mustPolicy(t, c.policy), Batch: 16, Seed: 3, LR: 2e-3})
			before := clone(tr.Nets().Net("G").Params()[0].Data())
			var first, last gan.StepStats
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
				minD = math.Min(minD, st.Losses[0])
				if math.IsNaN(st.Losses[0]) || math.IsInf(st.Losses[1], 0) {
					t.Fatalf("step %d: losses %v", st.Step, st.Losses)
				}
			}
			if first.Losses[0] == last.Losses[0] || first.Losses[1] == last.Losses[1] {
				t.Errorf("losses did not move: %v → %v", first.Losses, last.Losses)
			}
			if minD >= math.Log(4) {
				t.Errorf("D loss never fell below ln 4 = %.4f (minimum %.4f)", math.Log(4), minD)
			}
			if after := tr.Nets().Net("G").Params()[0].Data(); after[0] == before[0] && after[1] == before[1] {
				t.Errorf("G's first weights did not change")
			}
			t.Logf("losses %v → %v (min D %.4f), D(x) %.3f D(G(z)) %.3f", first.Losses, last.Losses, minD, last.Metrics[0], last.Metrics[1])
		})
	}
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
		// Stochastic rounding of the whole step: the optimiser's streams
		// are derived from the step, the other layers' restarted with the
		// dot products'.
		{"cgan-p8-paper-stochastic", tinyCGAN(), "p8-paper master_rounding=stochastic moments_rounding=stochastic grad_rounding=stochastic other_rounding=stochastic", 0},
		{"dcgan-p8+-paper-stochastic", tinyDCGAN(), "p8+-paper other_rounding=stochastic master=posit(16,1) master_rounding=stochastic", 2},
		// N:M sparsity (issue 31): random scores drawn from the seed and
		// step, a mask frozen before the checkpoint (saved in it) through
		// bias rebuilds, and one frozen after the resume.
		{"cgan-posit8+@2:4-random-frozen", tinyCGAN(), "posit8+@2:4 score=random fixed_after=2 grad_sparsity=1:2", 2},
		{"dcgan-fp32@1:2-frozen-later", tinyDCGAN(), "fp32@1:2 fixed_after=4 G/*:sparsity=1:4", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := toyData(t, 40, 8, 1) // 40/16: the loader wraps into epoch 1
			name, settings, _ := strings.Cut(c.policy, " ")
			pol := mustPolicy(t, name)
			for _, s := range strings.Fields(settings) {
				if s == "stochastic" {
					s = "rounding=stochastic"
				}
				if err := pol.Apply(s); err != nil {
					t.Fatal(err)
				}
			}
			opt := gan.Options{Policy: pol, Batch: 16, Seed: 9, BiasEvery: c.biasEvery}
			const n = 3
			straight := newTrainer(t, c.cfg, ds, opt)
			var want []gan.StepStats
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

			first := newTrainer(t, c.cfg, ds, opt)
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
			resumed, err := models.Resume(loaded, ds)
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
				if !reflect.DeepEqual(st, want[i]) {
					t.Errorf("step %d: resumed %+v, straight %+v", i+1, st, want[i])
				}
			}
			sp, rp := straight.Nets().Params(), resumed.Nets().Params()
			for i := range sp {
				if j := sameBits(sp[i].Data(), rp[i].Data()); j >= 0 {
					t.Errorf("%s[%d]: straight %v, resumed %v", sp[i].Name, j, sp[i].Data()[j], rp[i].Data()[j])
				}
			}
			for _, g := range []string{"D", "G"} {
				sa, ra := straight.Adam(g), resumed.Adam(g)
				for i := range sa.M {
					if j := sameBits(sa.M[i], ra.M[i]); j >= 0 {
						t.Errorf("Adam %s m %d differs at %d", g, i, j)
					}
					if j := sameBits(sa.V[i], ra.V[i]); j >= 0 {
						t.Errorf("Adam %s v %d differs at %d", g, i, j)
					}
				}
			}
			sb, rb := straight.Nets().Buffers(), resumed.Nets().Buffers()
			for i := range sb {
				if j := sameBits(sb[i].Data(), rb[i].Data()); j >= 0 {
					t.Errorf("%s[%d]: straight %v, resumed %v", sb[i].Name, j, sb[i].Data()[j], rb[i].Data()[j])
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
	tr := newTrainer(t, tinyCGAN(), ds, gan.Options{Policy: mustPolicy(t, "posit8+"), Batch: 8, Seed: 5, BiasEvery: 1})
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
	s, err := gan.ReadState(back)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := models.ConfigOf(back); err != nil || !reflect.DeepEqual(cfg, tinyCGAN()) {
		t.Errorf("config %+v (%v), want %+v", cfg, err, tinyCGAN())
	}
	if s.Step != 2 || s.Options.Batch != 8 || s.Options.Seed != 5 || s.Options.BiasEvery != 1 {
		t.Errorf("state %+v", s)
	}
	if got, want := s.Options.Policy.String(), tr.Options().Policy.String(); got != want {
		t.Errorf("policy:\n%s\nwant\n%s", got, want)
	}
	if len(s.Biases) != len(tr.Biases()) {
		t.Errorf("biases %v, want %v", s.Biases, tr.Biases())
	}
	m, _, err := models.Load(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Params() {
		if j := sameBits(p.Data(), tr.Nets().Params()[i].Data()); j >= 0 {
			t.Errorf("%s differs at %d", p.Name, j)
		}
	}
	if m.BatchStats {
		t.Error("loaded networks lack running statistics")
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
	tr := newTrainer(t, tinyCGAN(), ds, gan.Options{Batch: 8, Seed: 5})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := 0
	sum, err := tr.Run(ctx, gan.RunOptions{Dir: dir, Steps: 10, SampleEvery: 2, CheckpointEvery: 3, OnStep: func(st gan.StepStats, _ time.Duration) {
		steps++
		if st.Step == 4 {
			cancel()
		}
	}})
	_ = sum
	if err != gan.ErrInterrupted {
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
	if s, _ := gan.ReadState(ck); s.Step != 4 {
		t.Errorf("checkpoint at step %d, want 4", s.Step)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log.csv"))
	if lines := len(splitLines(string(log))); lines != 5 {
		t.Errorf("log has %d lines, want header + 4:\n%s", lines, log)
	}
	const header = "step,epoch,d_loss,g_loss,d_real,d_fake,loss_scale_d,loss_scale_g,skipped_d,skipped_g,status,step_seconds,elapsed_seconds"
	if h := splitLines(string(log))[0]; h != header {
		t.Errorf("log header %q, want %q", h, header)
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
	pol.LossScale = policy.LossScale{Scale: 0x1p40, Dynamic: true}
	tr := newTrainer(t, tinyCGAN(), toyData(t, 32, 8, 1), gan.Options{Policy: pol, Batch: 8, Seed: 2})
	before := clone(tr.Nets().Net("D").Params()[0].Data())
	st, err := tr.TrainStep()
	if err != nil {
		t.Fatal(err)
	}
	if !st.Skipped[0] || !st.Skipped[1] {
		t.Fatalf("first step at scale 2^40 not skipped: %+v", st)
	}
	if j := sameBits(before, tr.Nets().Net("D").Params()[0].Data()); j >= 0 {
		t.Errorf("skipped step changed D's weights")
	}
	applied := false
	for i := 0; i < 60 && !applied; i++ {
		if st, err = tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
		applied = !st.Skipped[0] && !st.Skipped[1]
	}
	if !applied || st.Scales[0] >= 0x1p40 || st.Scales[1] >= 0x1p40 {
		t.Errorf("no update applied after backing off: %+v", st)
	}
	t.Logf("first good step %d at scales %v", st.Step, st.Scales)
}
