package experiment

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"
	"github.com/positgan/positgan/internal/testimages"
	"github.com/positgan/positgan/models"
)

// compare --model esrgan: the table holds the bicubic row and a row per
// policy with the three figures.
func TestCompareESRGAN(t *testing.T) {
	s := Sweep{Model: "esrgan", Dataset: testimages.SRFolder(t), Policies: []string{"fp32"}, Seeds: 1, FirstSeed: 1, Steps: 2, Batch: 2,
		LR: 2e-4, N: 2, EvalSeed: 1, Out: t.TempDir()}
	tab, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{"| bicubic x4 (baseline) |", "| fp32 |", "Y-PSNR (dB)", "SSIM", "super-resolution of the test images"} {
		if !strings.Contains(out, want) {
			t.Errorf("results.md lacks %q:\n%s", want, out)
		}
	}
	ts, err := models.SRTests(s.Dataset, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := models.BicubicScores(ts, 4)
	if err != nil {
		t.Fatal(err)
	}
	rs := tab.Summary()
	if rs[0].Policy != "bicubic x4 (baseline)" || rs[0].Values[0] != b.YPSNR {
		t.Errorf("first row %+v, want the bicubic Y-PSNR %g", rs[0], b.YPSNR)
	}
}

// A table makes the bicubic row once, and again when the sweep's data set
// or options change.
func TestTableBaselines(t *testing.T) {
	dir, other := testimages.SRFolder(t), testimages.SRFolder(t)
	c := filepath.Join(other, "test", "c.png")
	img, err := imaging.Open(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := imaging.Save(imaging.AdjustContrast(img, -50), c); err != nil {
		t.Fatal(err)
	}
	bicubic := func(dataset string, k int) float64 {
		t.Helper()
		ts, err := models.SRTests(dataset, k)
		if err != nil {
			t.Fatal(err)
		}
		b, err := models.BicubicScores(ts, k)
		if err != nil {
			t.Fatal(err)
		}
		return b.YPSNR
	}
	if bicubic(dir, 4) == bicubic(other, 4) {
		t.Fatal("the two data sets have the same bicubic figures")
	}
	srColumns, err := evaluatorOf(models.ESRGAN).Metrics(&Sweep{})
	if err != nil {
		t.Fatal(err)
	}
	tab := &Table{Sweep: Sweep{Model: "esrgan", Dataset: dir}, Columns: srColumns, Runs: []Run{{Policy: "fp32", Seed: 1}},
		Results: []*Result{{Figures: map[string]float64{srColumns[0]: 20, srColumns[1]: 19, srColumns[2]: 0.5}}}}
	var made *baseRows
	for _, c := range []struct {
		dataset string
		options map[string]string
		k       int
		again   bool // the rows of the previous call, not made again
	}{
		{dir, nil, 4, false},
		{dir, nil, 4, true},
		{dir, map[string]string{}, 4, true},
		{dir, map[string]string{"scale": "2"}, 2, false},
		{other, map[string]string{"scale": "2"}, 2, false},
		{other, nil, 4, false},
	} {
		tab.Sweep.Dataset, tab.Sweep.Options = c.dataset, c.options
		rs := tab.Summary()
		want := bicubic(c.dataset, c.k)
		if name := fmt.Sprintf("bicubic x%d (baseline)", c.k); rs[0].Policy != name || rs[0].Values[0] != want {
			t.Errorf("%s %v: first row %+v, want %q with Y-PSNR %g", c.dataset, c.options, rs[0], name, want)
		}
		if again := tab.base == made; again != c.again {
			t.Errorf("%s %v: rows made again %v, want %v", c.dataset, c.options, !again, !c.again)
		}
		made = tab.base
		rs[0].Values[0] = 0 // the caller's: not the next call's
	}
}
