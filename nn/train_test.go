package nn_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// TestTrainerUpdatesEveryTensor trains the registered models, built from
// this package's modules, for a few steps of gan.Trainer: the losses stay
// finite, no update is skipped, and every parameter and batch-norm
// statistic of both networks changes, so that gradients reach every layer
// through the containers.
//
// Ten steps, not three: under posit8+ the gradient of the CGAN
// discriminator's output bias is exactly zero for the first six. While D
// cannot tell real from fake, the errors at its logits are all near
// ±(1/2)/batch × the loss scale (±64), round to the same posit(8,1) values
// and cancel in the bias's sum.
func TestTrainerUpdatesEveryTensor(t *testing.T) {
	ds := toyImages(t, 32, 16)
	for _, c := range []struct {
		name string
		cfg  models.Config
	}{
		{"cgan", models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 16, Width: 16, Features: 8}},
		// 16×16: the discriminator has a batch norm too.
		{"dcgan", models.Config{Arch: models.DCGAN, ZDim: 8, Channels: 1, Height: 16, Width: 16, Features: 4}},
	} {
		for _, name := range []string{"fp32", "posit8+"} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				pol, err := policy.Parse(name)
				if err != nil {
					t.Fatal(err)
				}
				m, err := models.New(c.cfg.WithPolicy(pol))
				if err != nil {
					t.Fatal(err)
				}
				tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Policy: pol, Batch: 8, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				nets := tr.Nets()
				params, buffers := nets.Params(), nets.Buffers()
				if len(buffers) == 0 {
					t.Fatal("no batch-norm statistics")
				}
				before := make([][]float32, 0, len(params)+len(buffers))
				for _, p := range params {
					before = append(before, slices.Clone(p.Data()))
				}
				for _, b := range buffers {
					before = append(before, slices.Clone(b.Data()))
				}
				for range 10 {
					st, err := tr.TrainStep()
					if err != nil {
						t.Fatal(err)
					}
					for i, l := range st.Losses {
						if math.IsNaN(l) || math.IsInf(l, 0) || st.Skipped[i] {
							t.Fatalf("step %d: losses %v, skipped %v", st.Step, st.Losses, st.Skipped)
						}
					}
				}
				if tr.Nets() != nets {
					t.Fatal("the trainer rebuilt its networks")
				}
				for i, p := range params {
					if slices.Equal(before[i], p.Data()) {
						t.Errorf("parameter %s did not change in ten steps", p.Name)
					}
				}
				for i, b := range buffers {
					if slices.Equal(before[len(params)+i], b.Data()) {
						t.Errorf("buffer %s did not change in ten steps", b.Name)
					}
				}
			})
		}
	}
}

// toyImages returns n one-channel side×side images: class 0 a bright left
// half, class 1 a bright top half, with noise; a discriminator soon tells
// them from a generator's first attempts.
func toyImages(t *testing.T, n, side int) *datasets.Set {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	sh := datasets.Shape{C: 1, H: side, W: side}
	pix := make([]uint8, n*sh.Size())
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		for y := range side {
			for x := range side {
				v := rng.IntN(40)
				if labels[i] == 0 && x < side/2 || labels[i] == 1 && y < side/2 {
					v += 200
				}
				pix[(i*side+y)*side+x] = uint8(v)
			}
		}
	}
	s, err := datasets.NewSet("toy", sh, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
