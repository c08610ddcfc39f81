package gan_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
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

// mnistConfig returns the default configuration of model arch for 28×28
// gray images of the given number of classes.
func mnistConfig(t testing.TB, arch string, classes int) models.Config {
	t.Helper()
	cfg, err := models.DefaultConfig(arch, imageShape(1, 28, 28), classes)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func tinyCGAN() models.Config {
	return models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 8, Width: 8, Features: 8}
}

func tinyDCGAN() models.Config {
	return models.Config{Arch: models.DCGAN, ZDim: 8, Channels: 1, Height: 8, Width: 8, Features: 4}
}

func mustPolicy(t testing.TB, name string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// policyWith returns the preset named by the first field of s with the
// settings that follow applied.
func policyWith(t testing.TB, s string) *policy.Policy {
	t.Helper()
	f := strings.Fields(s)
	p := mustPolicy(t, f[0])
	for _, set := range f[1:] {
		if err := p.Apply(set); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// newTrainer returns a trainer of the model cfg describes (with the
// policy's output tanh) on ds.
func newTrainer(t testing.TB, cfg models.Config, ds datasets.Dataset, opt gan.Options) *gan.Trainer {
	t.Helper()
	m, err := models.New(cfg.WithPolicy(opt.Policy))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// build returns the networks of cfg built for inference with policy pol
// (nil: float32) from seed, through a checkpoint of a fresh trainer.
func build(t testing.TB, cfg models.Config, pol *policy.Policy, seed uint64) *gan.Nets {
	t.Helper()
	tr := newTrainer(t, cfg, toyData(t, 4, cfg.Height, cfg.Channels), gan.Options{Policy: pol, Batch: 2, Seed: seed})
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := models.Load(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func spec(t testing.TB, n *gan.Nets) gan.GeneratorSpec {
	g, ok := n.Model.(gan.Generator)
	if !ok {
		t.Fatal("not a generator")
	}
	return g.Generator()
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }

func sameBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}
