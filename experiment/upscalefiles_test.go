package experiment_test

import (
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/imageio"
	"github.com/positgan/positgan/models"
)

// toyUpscaler returns an untrained x2 esrgan generator, small enough to
// run in a test.
func toyUpscaler(t *testing.T) *models.Upscaler {
	t.Helper()
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": "2", "blocks": "1", "gc": "2", "pretrain": "1"}
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.NewSet("toy", datasets.Shape{C: 3, H: 16, W: 16}, make([]uint8, 4*3*16*16), make([]int, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	u, err := models.NewUpscaler(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// toyImage returns a w×h gradient image.
func toyImage(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x * 8), uint8(y * 10), 90, 255})
		}
	}
	return img
}

// UpscaleFiles does for each file what Upscale, Score and WriteFiles do
// for one image, and gathers the outputs of --npy; with LR it only
// enlarges.
func TestUpscaleFiles(t *testing.T) {
	u := toyUpscaler(t)
	in, out := t.TempDir(), t.TempDir()
	for _, n := range []string{"a.png", "b.png"} {
		if err := imageio.Save(filepath.Join(in, n), toyImage(32, 28)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := experiment.UpscaleInputs(in)
	if err != nil || len(files) != 2 {
		t.Fatalf("UpscaleInputs(%s) = %v, %v; want its two images", in, files, err)
	}
	want, err := experiment.Upscale(u, "a", toyImage(32, 28))
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Score(); err != nil {
		t.Fatal(err)
	}
	var names []string
	stack := &experiment.NPYStack{Path: filepath.Join(out, "sr.npy")}
	err = experiment.UpscaleFiles(u, files, out, experiment.UpscaleOptions{NPY: stack}, func(r *experiment.Upscaled) {
		names = append(names, r.Name)
		if r.Name == "a" && (!slices.Equal(r.Out, want.Out) || r.Model != want.Model || r.Bicubic != want.Bicubic) {
			t.Errorf("a: scores %+v, %+v; Upscale's %+v, %+v", r.Model, r.Bicubic, want.Model, want.Bicubic)
		}
	})
	if err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("UpscaleFiles: called for %v, %v; want a, b", names, err)
	}
	for _, n := range []string{"a_sr.png", "a_bicubic.png", "a_lr.png", "b_sr.png", "b_bicubic.png", "b_lr.png"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Error(err)
		}
	}
	if w, err := stack.Write(); err != nil || w != filepath.Join(out, "sr.npy")+": float32 (2, 3, 28, 32)" {
		t.Errorf("NPYStack.Write = %q, %v", w, err)
	}

	// LR: each file enlarged as it is, only <name>_sr.png written.
	lrOut := t.TempDir()
	err = experiment.UpscaleFiles(u, files[:1], lrOut, experiment.UpscaleOptions{LR: true}, func(r *experiment.Upscaled) {
		if b := r.SR.Bounds(); b.Dx() != 64 || b.Dy() != 56 || r.Name != "a" {
			t.Errorf("LR: %s enlarged to %v; want 64x56", r.Name, b)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(lrOut); len(ents) != 1 || ents[0].Name() != "a_sr.png" {
		t.Errorf("LR wrote %v; want a_sr.png only", ents)
	}
}

// An NPYStack takes outputs of one size only; nil gathers nothing.
func TestNPYStack(t *testing.T) {
	s := &experiment.NPYStack{Path: "x.npy"}
	if err := s.Add(make([]float32, 3*4*5), 3, 4, 5); err != nil {
		t.Fatal(err)
	}
	err := s.Add(make([]float32, 3*4*6), 3, 4, 6)
	var se *experiment.NPYShapeError
	if !errors.As(err, &se) || err.Error() != "x.npy: outputs of 5x4 and 6x4 pixels make no (N, C, H, W) array: give images of one size" {
		t.Errorf("Add of another size: %v", err)
	}
	var none *experiment.NPYStack
	if err := none.Add([]float32{1}, 1, 1, 1); err != nil {
		t.Error(err)
	}
	if w, err := none.Write(); w != "" || err != nil {
		t.Errorf("nil NPYStack wrote %q, %v", w, err)
	}
}

// UpscaleInputs refuses a folder without images and names it.
func TestUpscaleInputsEmpty(t *testing.T) {
	dir := t.TempDir()
	if _, err := experiment.UpscaleInputs(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("UpscaleInputs(empty folder) = %v; want an error naming it", err)
	}
}
