package experiment

// How close translations made in one policy are to those of another, and
// the images written to files.

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"math"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/gan"
)

// An ImageScore is how close one image is to its reference, at 8 bits.
type ImageScore struct {
	Name string
	PSNR float64 // dB, eval.PSNR with peak 255; +Inf if the images are identical
	SSIM float64 // eval.SSIM with data range 255
}

// A TranslationComparison is how close translations are to reference
// translations of the same images (CompareTranslations).
type TranslationComparison struct {
	Images []ImageScore
	// MeanPSNR is the mean PSNR of the images that differ from their
	// reference; +Inf if none does.
	MeanPSNR float64
	MeanSSIM float64 // over every image; NaN if there are none
	// Identical is the number of images equal to their reference (PSNR
	// +Inf), which MeanPSNR leaves out.
	Identical int
}

// CompareTranslations returns the PSNR and SSIM of each translation in got
// against the one at the same place in ref, and their means, as the posit
// CycleGAN deployment study measures a policy against fp32 (positgan
// translate --policy). got and ref hold len(names) images of shape sh as
// models.Translate returns them, (N, C, H, W) values in [-1, 1]; they are
// compared as the 8-bit images that would be written to files. names[i]
// names image i.
func CompareTranslations(got, ref []float32, sh datasets.Shape, names []string) (TranslationComparison, error) {
	n := len(names)
	if len(got) != n*sh.Size() || len(ref) != n*sh.Size() {
		return TranslationComparison{}, fmt.Errorf("experiment: %d and %d values for %d images of %v", len(got), len(ref), n, sh)
	}
	cmp := TranslationComparison{Images: make([]ImageScore, n)}
	var sumPSNR, sumSSIM float64
	for i, name := range names {
		a := pixels8(got[i*sh.Size():(i+1)*sh.Size()], sh)
		b := pixels8(ref[i*sh.Size():(i+1)*sh.Size()], sh)
		p, err := eval.PSNR(a.Pix, b.Pix, 255)
		if err != nil {
			return TranslationComparison{}, err
		}
		s, err := eval.SSIM(a, b, 255)
		if err != nil {
			return TranslationComparison{}, err
		}
		if math.IsInf(p, 1) {
			cmp.Identical++
		} else {
			sumPSNR += p
		}
		sumSSIM += s
		cmp.Images[i] = ImageScore{Name: name, PSNR: p, SSIM: s}
	}
	cmp.MeanPSNR = math.Inf(1)
	if cmp.Identical < n {
		cmp.MeanPSNR = sumPSNR / float64(n-cmp.Identical)
	}
	cmp.MeanSSIM = sumSSIM / float64(n)
	return cmp, nil
}

// ImageOf returns a (C, H, W) image in [-1, 1] (C 1 or 3) as the 8-bit
// gray or RGB image written to files (positgan translate and sample),
// each value mapped as the sample grids map it.
func ImageOf(v []float32, sh datasets.Shape) image.Image {
	r := image.Rect(0, 0, sh.W, sh.H)
	plane := sh.H * sh.W
	if sh.C == 1 {
		g := image.NewGray(r)
		for i := range plane {
			g.Pix[i] = gan.Pixel8(v[i])
		}
		return g
	}
	m := image.NewNRGBA(r)
	for i := range plane {
		m.Pix[4*i], m.Pix[4*i+1], m.Pix[4*i+2], m.Pix[4*i+3] = gan.Pixel8(v[i]), gan.Pixel8(v[plane+i]), gan.Pixel8(v[2*plane+i]), 255
	}
	return m
}

// pixels8 returns a (C, H, W) image in [-1, 1] as 8-bit values with
// interleaved channels, as eval reads image files.
func pixels8(v []float32, sh datasets.Shape) eval.Pixels {
	p := eval.Pixels{Width: sh.W, Height: sh.H, Channels: sh.C, Pix: make([]float32, sh.Size())}
	plane := sh.H * sh.W
	for c := range sh.C {
		for i := range plane {
			p.Pix[i*sh.C+c] = float32(gan.Pixel8(v[c*plane+i]))
		}
	}
	return p
}

// WriteTable writes the comparison as positgan translate --policy prints
// it: a row per image with its PSNR (dB, "inf" for an identical image)
// and SSIM, then the means, and how many identical images the mean PSNR
// leaves out.
func (t TranslationComparison) WriteTable(w io.Writer) error {
	psnr := func(v float64) string {
		if math.IsInf(v, 1) {
			return "inf"
		}
		return fmt.Sprintf("%.2f", v)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-24s %10s %8s\n", "image", "PSNR dB", "SSIM")
	for _, im := range t.Images {
		fmt.Fprintf(bw, "%-24s %10s %8.4f\n", im.Name, psnr(im.PSNR), im.SSIM)
	}
	fmt.Fprintf(bw, "%-24s %10s %8.4f\n", "mean", psnr(t.MeanPSNR), t.MeanSSIM)
	if t.Identical > 0 {
		fmt.Fprintf(bw, "(%d identical images, PSNR inf, left out of the mean PSNR)\n", t.Identical)
	}
	return bw.Flush()
}
