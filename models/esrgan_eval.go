package models

// ESRGAN's evaluation: the figures of super-resolution papers (ScoreSR)
// of enlargements of the test images of a data set, what positgan
// upscale prints and a sweep measures ESRGAN runs by (its Evaluator).

import (
	"context"
	"fmt"
	"image"

	"github.com/disintegration/imaging"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
)

// SRScores are the figures of an enlargement against its ground truth, as
// super-resolution papers report them.
type SRScores struct {
	YPSNR float64 // dB, BT.601 luma of the 8-bit images, shaved
	PSNR  float64 // dB, RGB, shaved
	SSIM  float64 // eval.ImageSSIM of the shaved RGB images
}

// ScoreSR measures the enlargement sr against the ground truth hr with
// shave pixels left out at each border (the scale, by convention):
// eval.SRPSNR on luma and on RGB, and SSIM.
func ScoreSR(sr, hr image.Image, shave int) (SRScores, error) {
	a, b := eval.PixelsOf(sr), eval.PixelsOf(hr)
	var s SRScores
	var err error
	if s.YPSNR, err = eval.SRPSNR(a, b, shave, true); err != nil {
		return s, err
	}
	if s.PSNR, err = eval.SRPSNR(a, b, shave, false); err != nil {
		return s, err
	}
	r := image.Rect(shave, shave, a.Width-shave, a.Height-shave)
	if plainNRGBA(sr) && plainNRGBA(hr) {
		// Every image of a sweep (photographs, enlargements): the
		// crops' pixels are those already converted, so neither crop
		// is made and converted again.
		s.SSIM, err = eval.SSIM(cropPixels(a, r), cropPixels(b, r), 255)
		return s, err
	}
	// Other images are measured as the 8-bit NRGBA crops that
	// imaging.Crop makes, which PixelsOf of the whole image need not
	// match (gray images have one channel, 16-bit ones keep their
	// precision).
	s.SSIM, err = eval.ImageSSIM(imaging.Crop(sr, r), imaging.Crop(hr, r))
	return s, err
}

// plainNRGBA reports whether img is an *image.NRGBA at the origin, whose
// imaging.Crop holds its pixels unchanged, so that eval.PixelsOf of the
// crop is cropPixels of eval.PixelsOf of img.
func plainNRGBA(img image.Image) bool {
	m, ok := img.(*image.NRGBA)
	return ok && m.Rect.Min == image.Point{}
}

// cropPixels returns the pixels of p inside r, which p's bounds hold.
func cropPixels(p eval.Pixels, r image.Rectangle) eval.Pixels {
	c := eval.Pixels{Width: r.Dx(), Height: r.Dy(), Channels: p.Channels, Pix: make([]float32, 0, r.Dx()*r.Dy()*p.Channels)}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := (y*p.Width + r.Min.X) * p.Channels
		c.Pix = append(c.Pix, p.Pix[row:row+r.Dx()*p.Channels]...)
	}
	return c
}

// MeanSRScores returns the mean of each figure of scores, the figures of
// several images, as SR papers report a test set; NaN if scores is empty.
func MeanSRScores(scores []SRScores) SRScores {
	var sum SRScores
	for _, s := range scores {
		sum.YPSNR += s.YPSNR
		sum.PSNR += s.PSNR
		sum.SSIM += s.SSIM
	}
	n := float64(len(scores))
	return SRScores{sum.YPSNR / n, sum.PSNR / n, sum.SSIM / n}
}

// An SRTest is a ground-truth image prepared as SR papers prepare it: HR
// cropped to a multiple of the scale, LR made from it with MATLAB's
// bicubic imresize, and LR enlarged again by imresize, the baseline.
type SRTest struct {
	Name            string
	HR, LR, Bicubic image.Image
}

// NewSRTest prepares img for x k super-resolution.
func NewSRTest(name string, img image.Image, k int) SRTest {
	t := newSRTestNoBaseline(name, img, k)
	t.Bicubic = datasets.ResizeImage(t.LR, float64(k))
	return t
}

// newSRTestNoBaseline is NewSRTest without Bicubic, for measuring a run:
// its figures do not use the baseline (Baselines makes the bicubic row),
// and enlarging every test image to full size is not free.
func newSRTestNoBaseline(name string, img image.Image, k int) SRTest {
	hr := datasets.ModCrop(img, k)
	lr := datasets.ResizeImage(hr, 1/float64(k)) // datasets.Downscale, but hr is cropped already
	return SRTest{Name: name, HR: hr, LR: lr}
}

// SRTests returns the test images of a super-resolution data set
// (datasets.LoadPhotos: sr-photos' held-out butterfly and baboon, or a
// folder's test split) prepared for x k.
func SRTests(dataset string, k int) ([]SRTest, error) {
	return srTests(dataset, k, NewSRTest)
}

// srTests is SRTests with each image prepared by prepare.
func srTests(dataset string, k int, prepare func(name string, img image.Image, k int) SRTest) ([]SRTest, error) {
	ph, err := datasets.LoadPhotos(dataset, datasets.Test)
	if err != nil {
		return nil, err
	}
	ts := make([]SRTest, ph.Len())
	for i := range ts {
		ts[i] = prepare(ph.Name(i), ph.Image(i), k)
	}
	return ts, nil
}

// BicubicScores returns the mean figures of the bicubic baseline on ts.
func BicubicScores(ts []SRTest, k int) (SRScores, error) {
	scores := make([]SRScores, len(ts))
	for i, t := range ts {
		s, err := ScoreSR(t.Bicubic, t.HR, k)
		if err != nil {
			return SRScores{}, fmt.Errorf("%s: %w", t.Name, err)
		}
		scores[i] = s
	}
	return MeanSRScores(scores), nil
}

// ImageMaps returns ESRGAN's one map: low-resolution images to their
// enlargements by G.
func (m *esrgan) ImageMaps() []ImageMap {
	return []ImageMap{{Name: "upscale", Group: GroupG, Scale: m.scale}}
}

// srEvaluator is ESRGAN's Evaluator: Y-PSNR, RGB PSNR and SSIM (as
// positgan upscale measures them) of x K enlargements of the test images
// of the sweep's data set (sr-photos: butterfly and baboon), averaged
// over the images; the table has a bicubic row (Baseliner). It trains on
// random 48x48 patches, 16 per photograph per epoch, as positgan train
// does.
type srEvaluator struct{}

// srColumns are the figures of srEvaluator.
var srColumns = []string{"Y-PSNR (dB)", "PSNR (dB)", "SSIM"}

// srPatch and srPatchesPerImage are ESRGAN's training defaults (srData):
// the side of the patches and their number per photograph per epoch.
const srPatch, srPatchesPerImage = 48, 16

// Data loads the patches positgan train trains on (srData).
func (srEvaluator) Data(s EvalSettings) ([]datasets.Dataset, error) {
	ts, err := srData(DataSettings{Dataset: s.Dataset, Seed: s.DataSeed, Batch: s.Batch})
	return ts.Data, err
}

func (srEvaluator) Metrics(EvalSettings) ([]string, error) { return srColumns, nil }

func (srEvaluator) Describe(s EvalSettings) string {
	return fmt.Sprintf("super-resolution of the test images of %s (sr-photos: butterfly and baboon), means over the images: Y-PSNR (BT.601 luma) and RGB PSNR with the scale shaved from each border, SSIM; the bicubic row is MATLAB's imresize.", s.Dataset)
}

func (srEvaluator) Evaluate(ctx context.Context, s EvalSettings, c *ckpt.Checkpoint) ([]float64, error) {
	u, err := NewUpscaler(c, nil) // imagemap.go
	if err != nil {
		return nil, err
	}
	k := u.Scale()
	ts, err := srTests(s.Dataset, k, newSRTestNoBaseline) // the bicubic row is Baselines'
	if err != nil {
		return nil, err
	}
	scores := make([]SRScores, len(ts))
	for i, t := range ts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sr, err := u.Apply(t.LR)
		if err != nil {
			return nil, err
		}
		if scores[i], err = ScoreSR(sr, t.HR, k); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	m := MeanSRScores(scores)
	return []float64{m.YPSNR, m.PSNR, m.SSIM}, nil
}

// Baselines returns the bicubic row, at the scale the sweep's runs
// enlarge by: the model's default, or the sweep's "scale" option.
func (srEvaluator) Baselines(s EvalSettings) ([]eval.Result, error) {
	sh := datasets.Shape{C: 3, H: srPatch, W: srPatch}
	cfg, err := DefaultConfig(ESRGAN, sh, 0)
	if err != nil {
		return nil, err
	}
	if len(s.Options) > 0 {
		if cfg, err = cfg.WithOptions(s.Options); err != nil {
			return nil, fmt.Errorf("%w (data: %v images)", err, sh)
		}
	}
	k, err := cfg.Int("scale", 4)
	if err != nil {
		return nil, err
	}
	ts, err := SRTests(s.Dataset, k)
	if err != nil {
		return nil, err
	}
	b, err := BicubicScores(ts, k)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("bicubic x%d (baseline)", k)
	var rs []eval.Result
	for i, v := range []float64{b.YPSNR, b.PSNR, b.SSIM} {
		rs = append(rs, eval.Result{Policy: name, Metric: srColumns[i], Values: []float64{v}})
	}
	return rs, nil
}
