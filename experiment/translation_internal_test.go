package experiment

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
)

// A sweep trains CycleGAN on an unpaired folder as positgan train does:
// random 64x64 crops of the images loaded at 73x73, flipped at random,
// different from epoch to epoch.
func TestTranslationData(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"trainA", "trainB", "testA", "testB"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			img := image.NewNRGBA(image.Rect(0, 0, 40, 30))
			for y := range 30 {
				for x := range 40 {
					img.Set(x, y, color.NRGBA{uint8(x * 6), uint8(y * 8), uint8(i * 80), 255})
				}
			}
			f, err := os.Create(filepath.Join(dir, d, "img"+string(rune('0'+i))+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	data, err := translationEvaluator{}.Data(&Sweep{Dataset: dir, FirstSeed: 1})
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
