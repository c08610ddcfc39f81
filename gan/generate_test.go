package gan_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// GenerateSet with a batch of n equals one Sampler run over EvalNoise's
// vectors. With running statistics (the default), an image does not
// depend on the batch it is made in: every batch size gives the same
// bits. With BatchStats, a smaller batch's first batch equals a Sampler
// run on the first vectors only. Labels cycle through the classes; the
// same seed repeats the images and another changes them.
func TestGenerateSet(t *testing.T) {
	for _, c := range []models.Config{tinyCGAN(), tinyDCGAN()} {
		t.Run(c.Arch, func(t *testing.T) {
			m := build(t, c, mustPolicy(t, "posit8"), 3)
			sp := spec(t, m)
			const n = 7
			size := c.ImageSize()
			z, labels := gan.EvalNoise(sp, 5, n)
			sampled := func(k int, o gan.SampleOptions) []float32 {
				s, err := gan.NewSampler(m, k, o)
				if err != nil {
					t.Fatal(err)
				}
				dst := make([]float32, k*size)
				var lab []int
				if labels != nil {
					lab = labels[:k]
				}
				if err := s.Generate(dst, z[:k*sp.ZSize()], lab); err != nil {
					t.Fatal(err)
				}
				return dst
			}
			for _, o := range []gan.SampleOptions{{}, {BatchStats: true}} {
				want := sampled(n, o)
				for _, tc := range []struct{ batch, first int }{{0, n}, {n, n}, {100, n}, {3, 3}, {1, 1}} {
					g, err := gan.GenerateSet(m, n, 5, tc.batch, o)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(g.Images()[:tc.first*size], sampled(tc.first, o)) {
						t.Errorf("%+v batch %d: first batch differs from a sampler run", o, tc.batch)
					}
					if !o.BatchStats && !slices.Equal(g.Images(), want) {
						t.Errorf("batch %d: images depend on the batch size in eval mode", tc.batch)
					}
					again, err := gan.GenerateSet(m, n, 5, tc.batch, o)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(g.Images(), again.Images()) {
						t.Errorf("batch %d: two calls differ", tc.batch)
					}
					if g.Len() != n || g.Shape().Size() != size {
						t.Errorf("batch %d: %d images of %v", tc.batch, g.Len(), g.Shape())
					}
					img := make([]float32, size)
					g.Image(img, n-1)
					if !slices.Equal(img, g.Images()[(n-1)*size:]) {
						t.Errorf("batch %d: Image(%d) is not the last image", tc.batch, n-1)
					}
					for i := 0; i < n; i++ {
						wantLabel := 0
						if c.Classes > 0 {
							wantLabel = i % c.Classes
						}
						if g.Label(i) != wantLabel {
							t.Errorf("batch %d: label %d = %d, want %d", tc.batch, i, g.Label(i), wantLabel)
						}
					}
				}
				other, err := gan.GenerateSet(m, n, 6, 0, o)
				if err != nil {
					t.Fatal(err)
				}
				if slices.Equal(other.Images(), want) {
					t.Error("seeds 5 and 6 gave the same images")
				}
			}
			if _, err := gan.GenerateSet(m, 0, 5, 0, gan.SampleOptions{}); err == nil {
				t.Error("GenerateSet of 0 images: no error")
			}
		})
	}
}

// A generator with batch norm normalises a batch of one image by the
// running statistics in eval mode, so the image depends on its noise;
// normalised by its own statistics (BatchStats) it cannot: the defect
// that made single samples useless.
func TestSamplingSmallBatches(t *testing.T) {
	ds := toyData(t, 64, 8, 1)
	tr := newTrainer(t, tinyCGAN(), ds, gan.Options{Batch: 16, Seed: 4, LR: 2e-3})
	for i := 0; i < 20; i++ {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	sp := spec(t, tr.Nets())
	z, _ := gan.EvalNoise(sp, 1, 2)
	one := func(o gan.SampleOptions, zi []float32, label int) []float32 {
		s, err := gan.NewSampler(tr.Nets(), 1, o)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float32, sp.Image.Size())
		if err := s.Generate(dst, zi, []int{label}); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	z1, z2 := z[:sp.ZSize()], z[sp.ZSize():]
	batch := gan.SampleOptions{BatchStats: true}
	if a, b := one(batch, z1, 1), one(batch, z2, 1); !slices.Equal(a, b) {
		t.Error("batch statistics: a batch of one image depends on its noise (the test no longer shows the defect)")
	}
	if a, b := one(gan.SampleOptions{}, z1, 1), one(gan.SampleOptions{}, z2, 1); slices.Equal(a, b) {
		t.Error("eval mode: two noise vectors of one class give the same image")
	}
	// The trainer's networks keep training after sampling.
	if _, err := tr.TrainStep(); err != nil {
		t.Fatal(err)
	}
}

// The evaluation noise is not the noise of the sample grids.
func TestEvalNoiseDiffersFromFixedNoise(t *testing.T) {
	m, err := models.New(tinyCGAN())
	if err != nil {
		t.Fatal(err)
	}
	c := m.(gan.Generator).Generator()
	z, _ := gan.EvalNoise(c, 1, 4)
	f, _ := gan.FixedNoise(c, 1, 2, 2)
	if slices.Equal(z, f) {
		t.Error("EvalNoise and FixedNoise draw the same vectors")
	}
}

// Generate 5 images from a conditional GAN for an FID: labels cycle
// through the classes, and the set is a datasets.Dataset.
func ExampleGenerateSet() {
	cfg := models.Config{Arch: models.CGAN, ZDim: 8, Classes: 3, Channels: 1, Height: 8, Width: 8, Features: 8}
	m, err := models.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := gan.NewTrainer(m, []datasets.Dataset{threeClasses()}, gan.Options{Batch: 3, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	var g datasets.Dataset
	g, err = gan.GenerateSet(t.Nets(), 5, 1, 0, gan.SampleOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Len(), g.Shape(), g.Label(0), g.Label(1), g.Label(3))
	// Output: 5 1x8x8 0 1 0
}

// threeClasses returns three blank 8x8 images of classes 0, 1, 2.
func threeClasses() datasets.Dataset {
	s, err := datasets.NewSet("three", datasets.Shape{C: 1, H: 8, W: 8}, make([]uint8, 3*64), []int{0, 1, 2}, nil)
	if err != nil {
		panic(err)
	}
	return s
}
