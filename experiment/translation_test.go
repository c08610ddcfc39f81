package experiment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
)

// needMNISTFashion skips a test when Fashion-MNIST (Debian's
// dataset-fashion-mnist) is not installed.
func needMNISTFashion(t *testing.T) {
	t.Helper()
	if _, err := datasets.Load("fashion-mnist", datasets.Options{Split: datasets.Test}); err != nil {
		t.Skipf("no Fashion-MNIST: %v", err)
	}
}

// A CycleGAN sweep on the mnist-fashion toy tabulates the FID of both
// directions, each judged by the feature network of its target domain,
// through the model's Evaluator; run again, it measures nothing again.
func TestCompareCycleGAN(t *testing.T) {
	needMNISTFashion(t)
	out := t.TempDir()
	s := experiment.Sweep{Model: "cyclegan", Dataset: datasets.MNISTFashion, Policies: []string{"fp32", "posit8+"},
		Seeds: 1, FirstSeed: 1, Steps: 2, Batch: 2, LR: 2e-4, N: 20, EvalSeed: 1, Out: out}
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"FID A→B (LeNet-Fashion)", "FID B→A (LeNet-MNIST)"}
	if strings.Join(tab.Columns, "|") != strings.Join(cols, "|") {
		t.Errorf("columns %q, want %q", tab.Columns, cols)
	}
	for i, res := range tab.Results {
		if res == nil || len(res.Figures) != 2 || !(res.Figures[cols[0]] > 0) || !(res.Figures[cols[1]] > 0) || !(res.DLoss > 0) {
			t.Errorf("run %s: result %+v", tab.Runs[i], res)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"CYCLEGAN on mnist-fashion, 2 steps of batch 2 per run; FID per direction", "| posit8+ |"}, cols...) {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	runs, err := os.ReadFile(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(runs), "policy,seed,steps,"+strings.Join(cols, ",")+",d_loss,") {
		t.Errorf("runs.csv:\n%s", runs)
	}
	var res experiment.Result
	js, err := os.ReadFile(filepath.Join(out, "fp32", "seed1", experiment.ResultFile))
	if err != nil || json.Unmarshal(js, &res) != nil || res.Figures[cols[0]] != tab.Results[0].Figures[cols[0]] {
		t.Errorf("result.json (%v):\n%s", err, js)
	}
	// Evaluate measures both directions with what it loads once; each
	// figure is still the FID that Measure, loading everything itself,
	// gives.
	c, err := ckpt.Load(filepath.Join(out, "posit8+", "seed1", "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for i, dir := range []string{models.AtoB, models.BtoA} {
		fid, _, err := models.TranslationFID{Dataset: s.Dataset, Direction: dir, N: s.N, Seed: s.EvalSeed}.Measure(c)
		if got := tab.Results[1].Figures[cols[i]]; err != nil || got != fid {
			t.Errorf("%s: table FID %v, Measure %v (%v)", dir, got, fid, err)
		}
	}
	for _, f := range []string{"fid.png", "grids.png", "grids/posit8+.png"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}

	var log bytes.Buffer
	s.Log = &log
	if _, err := experiment.Compare(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), ": done (FID A→B (LeNet-Fashion) ") != 2 {
		t.Errorf("log of the second sweep:\n%s", log.String())
	}
}

// CompareTranslations scores each translation against its reference as
// the 8-bit images written to files. The expected figures come from the
// definitions: for uniform images p and q, PSNR is 20 log10(255/|p-q|) and
// SSIM its luminance term alone, (2pq + C1)/(p² + q² + C1) with C1 =
// (0.01·255)²; for one changed pixel, PSNR from the MSE by hand and SSIM
// from eval.SSIM of pixels laid out by hand. Identical images (PSNR +Inf)
// are counted apart and left out of the mean PSNR.
func TestCompareTranslations(t *testing.T) {
	gray := datasets.Shape{C: 1, H: 11, W: 12}
	rgb := datasets.Shape{C: 3, H: 12, W: 11}
	// fill returns an image of shape sh whose every value is v.
	fill := func(sh datasets.Shape, v float32) []float32 {
		x := make([]float32, sh.Size())
		for i := range x {
			x[i] = v
		}
		return x
	}
	// uniform returns an image of shape sh of 8-bit value p, in [-1, 1].
	uniform := func(sh datasets.Shape, p float64) []float32 { return fill(sh, float32(p/127.5-1)) }
	c1 := math.Pow(0.01*255, 2)
	psnr := func(p, q float64) float64 { return 20 * math.Log10(255/math.Abs(p-q)) }
	ssim := func(p, q float64) float64 { return (2*p*q + c1) / (p*p + q*q + c1) }

	// One RGB image of 8-bit value 50 whose green at (x 1, y 2) is 70.
	changed := uniform(rgb, 50)
	changed[1*rgb.H*rgb.W+2*rgb.W+1] = float32(70/127.5 - 1)
	a := eval.Pixels{Width: rgb.W, Height: rgb.H, Channels: 3, Pix: make([]float32, rgb.Size())}
	b := eval.Pixels{Width: rgb.W, Height: rgb.H, Channels: 3, Pix: make([]float32, rgb.Size())}
	for i := range a.Pix {
		a.Pix[i], b.Pix[i] = 50, 50
	}
	a.Pix[(2*rgb.W+1)*3+1] = 70 // interleaved channels, as eval reads files
	changedSSIM, err := eval.SSIM(a, b, 255)
	if err != nil {
		t.Fatal(err)
	}
	changedPSNR := 10 * math.Log10(255*255/(20*20/float64(rgb.Size())))

	inf := math.Inf(1)
	for _, c := range []struct {
		name      string
		sh        datasets.Shape
		got, ref  [][]float32
		psnr      []float64
		ssim      []float64
		meanPSNR  float64
		meanSSIM  float64
		identical int
	}{
		{"identical", gray, [][]float32{uniform(gray, 100)}, [][]float32{uniform(gray, 100)},
			[]float64{inf}, []float64{1}, inf, 1, 1},
		{"uniform", gray, [][]float32{uniform(gray, 100)}, [][]float32{uniform(gray, 110)},
			[]float64{psnr(100, 110)}, []float64{ssim(100, 110)}, psnr(100, 110), ssim(100, 110), 0},
		// Values past 1 are 255, and 100.4 rounds to 100.
		{"8 bits", gray, [][]float32{fill(gray, 1.25), uniform(gray, 100.4)}, [][]float32{fill(gray, 1), uniform(gray, 100)},
			[]float64{inf, inf}, []float64{1, 1}, inf, 1, 2},
		{"one pixel", rgb, [][]float32{changed}, [][]float32{uniform(rgb, 50)},
			[]float64{changedPSNR}, []float64{changedSSIM}, changedPSNR, changedSSIM, 0},
		{"mixed", rgb, [][]float32{uniform(rgb, 100), uniform(rgb, 30), uniform(rgb, 200)},
			[][]float32{uniform(rgb, 100), uniform(rgb, 60), uniform(rgb, 190)},
			[]float64{inf, psnr(30, 60), psnr(200, 190)}, []float64{1, ssim(30, 60), ssim(200, 190)},
			(psnr(30, 60) + psnr(200, 190)) / 2, (1 + ssim(30, 60) + ssim(200, 190)) / 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got, ref []float32
			names := make([]string, len(c.got))
			for i := range c.got {
				got, ref = append(got, c.got[i]...), append(ref, c.ref[i]...)
				names[i] = fmt.Sprintf("img%d.png", i)
			}
			cmp, err := experiment.CompareTranslations(got, ref, c.sh, names)
			if err != nil {
				t.Fatal(err)
			}
			if len(cmp.Images) != len(names) {
				t.Fatalf("%d scores for %d images", len(cmp.Images), len(names))
			}
			for i, s := range cmp.Images {
				if s.Name != names[i] || !near(s.PSNR, c.psnr[i]) || !near(s.SSIM, c.ssim[i]) {
					t.Errorf("image %d: %s PSNR %v SSIM %v, want %s %v %v", i, s.Name, s.PSNR, s.SSIM, names[i], c.psnr[i], c.ssim[i])
				}
			}
			if !near(cmp.MeanPSNR, c.meanPSNR) || !near(cmp.MeanSSIM, c.meanSSIM) || cmp.Identical != c.identical {
				t.Errorf("means PSNR %v SSIM %v, %d identical; want %v %v, %d", cmp.MeanPSNR, cmp.MeanSSIM, cmp.Identical, c.meanPSNR, c.meanSSIM, c.identical)
			}
		})
	}

	if _, err := experiment.CompareTranslations(uniform(gray, 1), uniform(gray, 1)[1:], gray, []string{"a"}); err == nil {
		t.Error("images of different sizes compared")
	}
	if _, err := experiment.CompareTranslations(uniform(gray, 1), uniform(gray, 1), gray, []string{"a", "b"}); err == nil {
		t.Error("one image compared as two")
	}
}

// near reports whether got is want to 1e-9 (relative), or both are +Inf.
func near(got, want float64) bool {
	if math.IsInf(want, 1) {
		return math.IsInf(got, 1)
	}
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// ImageOf writes values in [-1, 1] as 8-bit pixels, -1 as 0, 0 as 128
// (127.5 rounded away from zero) and 1 as 255, clipping past the range; a
// (C, H, W) RGB image is read plane by plane.
func TestImageOf(t *testing.T) {
	g, ok := experiment.ImageOf([]float32{-1, 0, 1, 1.5, -2, 0.2}, datasets.Shape{C: 1, H: 2, W: 3}).(*image.Gray)
	if !ok || !slices.Equal(g.Pix, []uint8{0, 128, 255, 255, 0, 153}) || g.Rect != image.Rect(0, 0, 3, 2) {
		t.Errorf("gray image %+v, want pixels [0 128 255 255 0 153] of 3x2", g)
	}
	// Red, green and blue planes of two pixels.
	c, ok := experiment.ImageOf([]float32{-1, 1, 0, -1, 1, 1}, datasets.Shape{C: 3, H: 1, W: 2}).(*image.NRGBA)
	if !ok || !slices.Equal(c.Pix, []uint8{0, 128, 255, 255, 255, 0, 255, 255}) {
		t.Errorf("RGB image %+v, want pixels (0,128,255) and (255,0,255), opaque", c)
	}
}

func TestTranslationComparisonWriteTable(t *testing.T) {
	c := experiment.TranslationComparison{Images: []experiment.ImageScore{{Name: "a.png", PSNR: 31.234, SSIM: 0.91234}, {Name: "b.png", PSNR: math.Inf(1), SSIM: 1}},
		MeanPSNR: 31.234, MeanSSIM: 0.95617, Identical: 1}
	var b strings.Builder
	if err := c.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "image                       PSNR dB     SSIM\n" +
		"a.png                         31.23   0.9123\n" +
		"b.png                           inf   1.0000\n" +
		"mean                          31.23   0.9562\n" +
		"(1 identical images, PSNR inf, left out of the mean PSNR)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
