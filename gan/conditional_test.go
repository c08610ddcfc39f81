package gan_test

import (
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// oneClass is a Generated set relabelled: every image claims class k.
type oneClass struct {
	*gan.Generated
	k int
}

func (o oneClass) Label(int) int { return o.k }

// A CGAN trained briefly on MNIST draws the digit it is asked for: the
// shipped LeNet-MNIST classifies a batch of one class (sample --class k)
// and a batch cycling through the classes as the requested digits far
// above the 10% of chance, and a batch of one image is a picture, not a
// flat tile. These failed while generators normalised each batch by its
// own statistics (issue 14): a batch of one class lost its label.
func TestConditionalSamplesAreTheirClass(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a CGAN for 600 steps")
	}
	train, err := datasets.LoadMNIST(datasets.Train)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.DefaultConfig(models.CGAN, train.Shape(), 10)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 64
	tr := newTrainer(t, cfg, train, gan.Options{Batch: 64, Seed: 1, LR: 5e-4})
	for i := 0; i < 600; i++ {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	lenet, err := featnet.ShippedLeNet("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	nets := tr.Nets()
	sp := spec(t, nets)

	mixed, err := gan.GenerateSet(nets, 200, 3, 0, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if acc, err := lenet.Accuracy(mixed); err != nil || acc < 0.6 {
		t.Errorf("classes cycling: LeNet agrees on %.2f of the images (%v), want >= 0.6", acc, err)
	}

	const n = 40
	for _, k := range []int{1, 3, 7} {
		z, _ := gan.EvalNoise(sp, uint64(10+k), n)
		labels := slices.Repeat([]int{k}, n)
		s, err := gan.NewSampler(nets, n, gan.SampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		imgs := make([]float32, n*sp.Image.Size())
		if err := s.Generate(imgs, z, labels); err != nil {
			t.Fatal(err)
		}
		set := oneClass{gan.NewGenerated(sp, imgs, labels), k}
		if acc, err := lenet.Accuracy(set); err != nil || acc < 0.5 {
			t.Errorf("class %d alone: LeNet agrees on %.2f of the images (%v), want >= 0.5", k, acc, err)
		} else {
			t.Logf("class %d alone: %.2f", k, acc)
		}
	}

	s, err := gan.NewSampler(nets, 1, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	z, _ := gan.EvalNoise(sp, 99, 1)
	img := make([]float32, sp.Image.Size())
	if err := s.Generate(img, z, []int{4}); err != nil {
		t.Fatal(err)
	}
	if lo, hi := slices.Min(img), slices.Max(img); hi-lo < 1 {
		t.Errorf("a batch of one image spans only [%g, %g]: a flat tile", lo, hi)
	}
}
