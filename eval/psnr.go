package eval

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/positgan/positgan/datasets"
)

// PSNR returns the peak signal-to-noise ratio between a and b in decibels,
//
//	10 log10(peak² / MSE),
//
// where MSE is the mean of (a[i]-b[i])² over every element (for images,
// every pixel and channel) and peak is the largest possible value: 255 for
// 8-bit data, 1 for data in [0, 1]. Identical inputs give +Inf. Slices of
// different lengths, empty slices, a peak that is not positive and finite,
// and non-finite data are errors.
func PSNR(a, b []float32, peak float64) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("eval: PSNR of %d and %d values", len(a), len(b))
	}
	if len(a) == 0 {
		return 0, fmt.Errorf("eval: PSNR of no values")
	}
	if !(peak > 0) || math.IsInf(peak, 0) {
		return 0, fmt.Errorf("eval: PSNR peak %g is not positive and finite", peak)
	}
	sum := sumSqDiff(a, b)
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return 0, fmt.Errorf("eval: PSNR of data that is not finite")
	}
	if sum == 0 {
		return math.Inf(1), nil
	}
	mse := sum / float64(len(a))
	return 10 * math.Log10(peak*peak/mse), nil
}

// Pixels is an image as float32 values on the 8-bit scale [0, 255], row
// by row, with the channels of a pixel interleaved.
type Pixels struct {
	Pix                     []float32
	Width, Height, Channels int
}

// PixelsOf returns the pixels of img. Grayscale images (*image.Gray and
// *image.Gray16, which is what PNG and JPEG decoders return for gray files)
// have one channel; every other image has three, red, green and blue, with
// alpha ignored (colours are taken non-premultiplied). A gray PNG with an
// alpha channel decodes to NRGBA and so has three. 16-bit samples are
// divided by 257, so they keep their precision on the 8-bit scale and
// 8-bit samples stay exact.
func PixelsOf(img image.Image) Pixels {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	p := Pixels{Width: w, Height: h}
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		p.Channels = 1
		p.Pix = make([]float32, 0, w*h)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g := color.Gray16Model.Convert(img.At(x, y)).(color.Gray16)
				p.Pix = append(p.Pix, float32(float64(g.Y)/257))
			}
		}
	default:
		p.Channels = 3
		p.Pix = make([]float32, 0, 3*w*h)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				c := nrgba64(img.At(x, y))
				p.Pix = append(p.Pix, float32(float64(c.R)/257), float32(float64(c.G)/257), float32(float64(c.B)/257))
			}
		}
	}
	return p
}

// ImagePSNR returns the PSNR between two images of the same size and
// channel count (see PixelsOf), with peak on the 8-bit scale (255 for the
// usual definition).
func ImagePSNR(a, b image.Image, peak float64) (float64, error) {
	return pixelsPSNR(PixelsOf(a), PixelsOf(b), peak)
}

func pixelsPSNR(a, b Pixels, peak float64) (float64, error) {
	if a.Width != b.Width || a.Height != b.Height {
		return 0, fmt.Errorf("eval: image sizes differ: %dx%d and %dx%d", a.Width, a.Height, b.Width, b.Height)
	}
	if a.Channels != b.Channels {
		return 0, fmt.Errorf("eval: channel counts differ: %d and %d (gray and colour)", a.Channels, b.Channels)
	}
	return PSNR(a.Pix, b.Pix, peak)
}

func init() { Register("psnr", psnrMetric{}) }

// psnrMetric is the registered "psnr".
type psnrMetric struct{}

func (psnrMetric) Summary() string {
	return "PSNR (dB) over every pixel and channel, peak Options.Peak (255); with Options.Shave, of the shaved images rounded to 8 bits (SRPSNR)"
}

func (psnrMetric) ComparePair(ref, test Pixels, o Options) (float64, error) {
	if o.Shave != 0 {
		if err := shavedPeak(o); err != nil {
			return 0, err
		}
		return SRPSNR(ref, test, o.Shave, false)
	}
	peak := o.Peak
	if peak == 0 {
		peak = 255
	}
	return pixelsPSNR(ref, test, peak)
}

// shavedPeak reports whether o's peak suits a shaved measurement, which
// is on the 8-bit scale with peak 255.
func shavedPeak(o Options) error {
	if o.Peak != 0 && o.Peak != 255 {
		return fmt.Errorf("eval: PSNR of shaved images has peak 255, not %g", o.Peak)
	}
	return nil
}

// FilePSNR decodes two image files (PNG, JPEG, GIF, TIFF or BMP), each of
// at most datasets.MaxImagePixels pixels (checked before decoding), and
// returns their ImagePSNR.
func FilePSNR(a, b string, peak float64) (float64, error) {
	ia, err := datasets.OpenImage(a)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	ib, err := datasets.OpenImage(b)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	p, err := ImagePSNR(ia, ib, peak)
	if err != nil {
		return 0, fmt.Errorf("%w (%s, %s)", err, a, b)
	}
	return p, nil
}

// nrgba64 returns c non-premultiplied. Colours that are stored
// non-premultiplied (PNG with alpha decodes to them) are taken as they
// are: converting through premultiplied RGBA would round them, and lose
// them entirely where alpha is 0.
func nrgba64(c color.Color) color.NRGBA64 {
	switch c := c.(type) {
	case color.NRGBA:
		return color.NRGBA64{R: uint16(c.R) * 257, G: uint16(c.G) * 257, B: uint16(c.B) * 257, A: uint16(c.A) * 257}
	case color.NRGBA64:
		return c
	}
	return color.NRGBA64Model.Convert(c).(color.NRGBA64)
}
