package models

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
)

// A sweep trains CycleGAN on an unpaired folder as positgan train does:
// random 64x64 crops of the images loaded at 73x73, flipped at random,
// different from epoch to epoch.
func TestTranslationData(t *testing.T) {
	dir := translationFolder(t, 3)
	data, err := translationEvaluator{}.Data(EvalSettings{Dataset: dir, DataSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 2 {
		t.Fatalf("%d data sets, want 2", len(data))
	}
	for _, ds := range data {
		if sh := ds.Shape(); sh != (datasets.Shape{C: 3, H: 64, W: 64}) || ds.Len() != 3 {
			t.Errorf("shape %v, %d images", sh, ds.Len())
		}
	}
	ep, ok := data[0].(datasets.EpochImager)
	if !ok {
		t.Fatal("the training images are not augmented")
	}
	n := data[0].Shape().Size()
	seen := [][]float32{}
	for e := range 4 {
		x := make([]float32, n)
		ep.ImageAt(x, 0, e)
		if !slices.ContainsFunc(seen, func(y []float32) bool { return slices.Equal(x, y) }) {
			seen = append(seen, x)
		}
	}
	if len(seen) < 2 {
		t.Error("the same crop in four epochs")
	}
}

// trainedCycleGAN returns the checkpoint of a CycleGAN trained one step of
// batch 2 in fp32 on the training data of s, as a sweep trains it.
func trainedCycleGAN(t *testing.T, s EvalSettings) *ckpt.Checkpoint {
	t.Helper()
	data, err := translationEvaluator{}.Data(s)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := DefaultConfig(CycleGAN, data[0].Shape(), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Parse("fp32")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, data, gan.Options{Policy: pol, Batch: 2, Seed: 1, LR: 2e-4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrainStep(); err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// translationFolder writes an unpaired folder of n 40x30 colour images in
// each of trainA, trainB, testA and testB.
func translationFolder(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"trainA", "trainB", "testA", "testB"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			img := image.NewNRGBA(image.Rect(0, 0, 40, 30))
			for y := range 30 {
				for x := range 40 {
					img.Set(x, y, color.NRGBA{uint8(x * 6), uint8(y * 8), uint8(i * 80), 255})
				}
			}
			f, err := os.Create(filepath.Join(dir, d, fmt.Sprintf("img%d.png", i)))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	return dir
}

// A sweep's evaluator makes the statistics of the real images of each
// direction once, and makes them again when what they depend on changes
// between calls (the sweep's N, seed, feature network or data set): every
// figure is the one measured without them kept.
func TestTranslationRefs(t *testing.T) {
	if _, _, err := datasets.LoadTranslation(datasets.MNISTFashion, datasets.Options{Split: datasets.Test}); err != nil {
		t.Skipf("no %s: %v", datasets.MNISTFashion, err)
	}
	ctx := context.Background()
	s := EvalSettings{Dataset: datasets.MNISTFashion, N: 20, Seed: 1, DataSeed: 1}
	c := trainedCycleGAN(t, s)
	folder := translationFolder(t, 4)
	ev := newTranslationEvaluator().(translationEvaluator)
	for _, tc := range []struct {
		name   string
		change func(s *EvalSettings)
		made   int // statistics made, not kept from an earlier call
	}{
		{"first", func(*EvalSettings) {}, 2},
		{"again", func(*EvalSettings) {}, 0},
		{"N", func(s *EvalSettings) { s.N = 30 }, 2},
		{"seed", func(s *EvalSettings) { s.Seed = 2 }, 2},
		// B→A is judged by lenet-mnist already.
		{"features", func(s *EvalSettings) { s.Features = "lenet-mnist" }, 1},
		{"dataset", func(s *EvalSettings) { s.Dataset, s.N = folder, 4 }, 2},
	} {
		tc.change(&s)
		before := len(ev.refs.m)
		got, err := ev.Evaluate(ctx, s, c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if made := len(ev.refs.m) - before; made != tc.made {
			t.Errorf("%s: %d statistics made, want %d", tc.name, made, tc.made)
		}
		want, err := translationEvaluator{}.Evaluate(ctx, s, c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: figures %v, want %v", tc.name, got, want)
		}
	}
}

// The FID of a direction is measured by the feature network of the target
// domain; an unknown direction or a data set without a default network is
// an error.
func TestTranslationFeatures(t *testing.T) {
	for _, tc := range []struct {
		dataset, dir, want string
		err                bool
	}{
		{datasets.MNISTFashion, AtoB, "lenet-fashion", false},
		{datasets.MNISTFashion, BtoA, "lenet-mnist", false},
		{"horse2zebra", AtoB, "", true},
	} {
		got, err := TranslationFeatures(tc.dataset, tc.dir)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%s %s: %q, %v; want %q", tc.dataset, tc.dir, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, dir string }{{"AtoB", AtoB}, {"a2b", AtoB}, {"BA", BtoA}, {"up", ""}} {
		d, _, err := ParseDirection(tc.in)
		if d != tc.dir || (err != nil) != (tc.dir == "") {
			t.Errorf("ParseDirection(%q) = %q, %v", tc.in, d, err)
		}
	}
}
