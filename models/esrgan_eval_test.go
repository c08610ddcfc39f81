package models

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/internal/testimages"
)

func TestScoreSR(t *testing.T) {
	hr := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for i := range hr.Pix {
		hr.Pix[i] = 200
	}
	sr := image.NewNRGBA(hr.Rect)
	copy(sr.Pix, hr.Pix)
	// One pixel off by 10 in red, inside the shaved border: RGB MSE is
	// 100/(3·12·12), Y MSE (65.481/255·10)²/(12·12).
	sr.Pix[sr.PixOffset(5, 6)] = 190
	s, err := ScoreSR(sr, hr, 2)
	if err != nil {
		t.Fatal(err)
	}
	wantRGB := 10 * math.Log10(255*255/(100.0/432))
	dy := 65.481 / 255 * 10
	wantY := 10 * math.Log10(255*255/(dy*dy/144))
	if math.Abs(s.PSNR-wantRGB) > 1e-9 || math.Abs(s.YPSNR-wantY) > 1e-9 || !(s.SSIM < 1 && s.SSIM > 0.9) {
		t.Errorf("ScoreSR = %+v, want Y-PSNR %g, PSNR %g, SSIM just below 1", s, wantY, wantRGB)
	}
	// SSIM is that of the crops inside the border.
	r := image.Rect(2, 2, 14, 14)
	if want, err := eval.ImageSSIM(imaging.Crop(sr, r), imaging.Crop(hr, r)); err != nil || s.SSIM != want {
		t.Errorf("SSIM %v, want %v (%v) of the crops", s.SSIM, want, err)
	}
	// The same pixel in the shaved border does not count.
	copy(sr.Pix, hr.Pix)
	sr.Pix[sr.PixOffset(1, 6)] = 190
	if s, err := ScoreSR(sr, hr, 2); err != nil || !math.IsInf(s.YPSNR, 1) || !math.IsInf(s.PSNR, 1) {
		t.Errorf("difference in the border: %+v, %v", s, err)
	}
}

// MeanSRScores averages each figure over the images.
func TestMeanSRScores(t *testing.T) {
	got := MeanSRScores([]SRScores{{20, 18, 0.5}, {30, 24, 0.75}, {25, 21, 1}})
	if want := (SRScores{25, 21, 0.75}); got != want {
		t.Errorf("MeanSRScores = %+v, want %+v", got, want)
	}
	if m := MeanSRScores(nil); !math.IsNaN(m.YPSNR) || !math.IsNaN(m.PSNR) || !math.IsNaN(m.SSIM) {
		t.Errorf("mean of no scores = %+v, want NaN", m)
	}
}

// The bicubic baseline on Set5's butterfly is the figure SR papers list
// (22.10 dB Y-PSNR at x4), when opencv-doc is installed.
func TestBicubicButterfly(t *testing.T) {
	f := datasets.SRTestFiles[0]
	img, err := datasets.OpenImage(f)
	if err != nil {
		t.Skipf("%s: %v", f, err)
	}
	b, err := BicubicScores([]SRTest{NewSRTest("butterfly", img, 4)}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if math.Round(b.YPSNR*100) != 2210 {
		t.Errorf("bicubic x4 butterfly: Y-PSNR %.4f, want 22.10", b.YPSNR)
	}
}

// TestBaselinesScale: the bicubic row enlarges by the sweep's "scale"
// option, as its runs do.
func TestBaselinesScale(t *testing.T) {
	dir := testimages.SRFolder(t)
	for _, k := range []int{2, 4} {
		s := EvalSettings{Dataset: dir, Options: map[string]string{"scale": strconv.Itoa(k)}}
		rs, err := srEvaluator{}.Baselines(s)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := SRTests(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		b, err := BicubicScores(ts, k)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("bicubic x%d (baseline)", k); rs[0].Policy != want || rs[0].Values[0] != b.YPSNR {
			t.Errorf("scale %d: first row %+v, want %q with Y-PSNR %g", k, rs[0], want, b.YPSNR)
		}
	}
}
