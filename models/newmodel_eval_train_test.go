package models_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
)

// squareFolder writes an image folder of 8x8 gray images of a bright
// square at a random place: 32 in train/, 8 in test/.
func squareFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	for split, n := range map[string]int{"train": 32, "test": 8} {
		if err := os.MkdirAll(filepath.Join(dir, split), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			img := image.NewGray(image.Rect(0, 0, 8, 8))
			x0, y0 := rng.IntN(5), rng.IntN(5)
			for y := y0; y < y0+3; y++ {
				for x := x0; x < x0+3; x++ {
					img.Pix[y*8+x] = 230
				}
			}
			f, err := os.Create(filepath.Join(dir, split, fmt.Sprintf("sq%02d.png", i)))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// The model of newmodel_eval_test.go, defined outside package models with
// exported API only, is trained and measured by a sweep through the
// Evaluator its Spec carries: the table shows its PSNR in place of an
// FID, and the figure is the one the Evaluator gives on the run's
// checkpoint.
func TestModelWithEvaluatorInOneFile(t *testing.T) {
	spec, err := models.Lookup("denoise-mini")
	if err != nil {
		t.Fatal(err)
	}
	s := experiment.Sweep{Model: "denoise-mini", Dataset: squareFolder(t), Policies: []string{"fp32"}, Seeds: 1, FirstSeed: 1,
		Steps: 3, Batch: 4, LR: 1e-3, N: 8, EvalSeed: 1, Out: t.TempDir()}
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"PSNR (dB)"}; !slices.Equal(tab.Columns, want) {
		t.Fatalf("columns %q, want %q", tab.Columns, want)
	}
	res := tab.Results[0]
	if res == nil {
		t.Fatal("the run has no result")
	}
	psnr := res.Figures["PSNR (dB)"]
	if math.IsNaN(psnr) || math.IsInf(psnr, 0) || psnr < 5 || psnr > 60 {
		t.Errorf("PSNR %v dB, want a figure of a denoiser", psnr)
	}
	md, err := os.ReadFile(filepath.Join(s.Out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "DENOISE-MINI on " + s.Dataset + ", 3 steps of batch 4 per run; PSNR of 8 denoised test images"; !strings.HasPrefix(string(md), want) {
		t.Errorf("results.md starts %.120q, want %q", md, want)
	}

	// The same figure straight from the Spec, on the run's checkpoint.
	c, err := ckpt.Load(filepath.Join(s.Out, "fp32", "seed1", "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := spec.Evaluator().Evaluate(context.Background(), models.EvalSettings{Dataset: s.Dataset, N: s.N, Seed: s.EvalSeed}, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || figs[0] != psnr {
		t.Errorf("Evaluate: %v, want [%v]", figs, psnr)
	}

	// Its generator maps images of its own size, through ImageMaps.
	test, err := datasets.Load(s.Dataset, datasets.Options{Split: datasets.Test, Channels: 3})
	if err != nil {
		t.Fatal(err)
	}
	out, err := models.Translate(c, nil, "G", test, 3)
	if err != nil || len(out) != test.Len()*test.Shape().Size() {
		t.Errorf("Translate: %d values (%v), want %d", len(out), err, test.Len()*test.Shape().Size())
	}
	if _, err := models.Translate(c, nil, "D", test, 3); err == nil {
		t.Error("Translate by a group that is no image map: no error")
	}
}
