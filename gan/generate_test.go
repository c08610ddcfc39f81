package gan

import (
	"fmt"
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

// GenerateSet with a batch of n equals one Sampler run over EvalNoise's
// vectors; with a smaller batch, its first batch equals a Sampler run on
// the first vectors (batch normalisation uses the batch's statistics);
// labels cycle through the classes; the same seed repeats the images and
// another changes them.
func TestGenerateSet(t *testing.T) {
	for _, c := range []models.Config{tinyCGAN(), tinyDCGAN()} {
		t.Run(c.Arch, func(t *testing.T) {
			m, err := models.New(c, mustPolicy(t, "posit8").For, 3)
			if err != nil {
				t.Fatal(err)
			}
			const n = 7
			size := c.ImageSize()
			z, labels := EvalNoise(c, 5, n)
			sampled := func(k int) []float32 {
				s, err := NewSampler(m, k)
				if err != nil {
					t.Fatal(err)
				}
				dst := make([]float32, k*size)
				var lab []int
				if labels != nil {
					lab = labels[:k]
				}
				if err := s.Generate(dst, z[:k*c.ZDim], lab); err != nil {
					t.Fatal(err)
				}
				return dst
			}
			want := sampled(n)
			for _, tc := range []struct{ batch, first int }{{0, n}, {n, n}, {100, n}, {3, 3}, {1, 1}} {
				g, err := GenerateSet(m, n, 5, tc.batch)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(g.Images()[:tc.first*size], sampled(tc.first)) {
					t.Errorf("batch %d: first batch differs from a sampler run", tc.batch)
				}
				again, err := GenerateSet(m, n, 5, tc.batch)
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
			other, err := GenerateSet(m, n, 6, 0)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(other.Images(), want) {
				t.Error("seeds 5 and 6 gave the same images")
			}
			if _, err := GenerateSet(m, 0, 5, 0); err == nil {
				t.Error("GenerateSet of 0 images: no error")
			}
		})
	}
}

// The evaluation noise is not the noise of the sample grids.
func TestEvalNoiseDiffersFromFixedNoise(t *testing.T) {
	c := tinyCGAN()
	z, _ := EvalNoise(c, 1, 4)
	f, _ := FixedNoise(c, 1, 2, 2)
	if slices.Equal(z, f) {
		t.Error("EvalNoise and FixedNoise draw the same vectors")
	}
}

// Generate 5 images from a conditional GAN for an FID: labels cycle
// through the classes, and the set is a datasets.Dataset.
func ExampleGenerateSet() {
	cfg := models.Config{Arch: models.CGAN, ZDim: 8, Classes: 3, Channels: 1, Height: 8, Width: 8, Features: 8}
	pol, err := quant.ParsePolicy("posit8")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := models.New(cfg, pol.For, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	var g datasets.Dataset
	g, err = GenerateSet(m, 5, 1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Len(), g.Shape(), g.Label(0), g.Label(1), g.Label(3))
	// Output: 5 1x8x8 0 1 0
}
