package eval

import (
	"fmt"
	"math"

	"github.com/positgan/positgan/datasets"
)

// Luma returns the Y channel of YCbCr of an RGB image on the 8-bit scale,
// as MATLAB's rgb2ycbcr defines it (ITU-R BT.601, studio range):
//
//	Y = 16 + 65.481·R + 128.553·G + 24.966·B    with R, G, B in [0, 1],
//
// in float64 (not rounded to an integer, as BasicSR's bgr2ycbcr with
// y_only). The values of p are first rounded to 8 bits
// (datasets.Round8). A gray image is returned as it is (rounded).
func Luma(p Pixels) []float64 {
	n := p.Width * p.Height
	y := make([]float64, n)
	r8 := func(v float32) float64 { return float64(datasets.Round8(float64(v))) }
	if p.Channels == 1 {
		for i := range y {
			y[i] = r8(p.Pix[i])
		}
		return y
	}
	for i := range y {
		r, g, b := r8(p.Pix[3*i]), r8(p.Pix[3*i+1]), r8(p.Pix[3*i+2])
		// float64(…) stops arm64 fusing the multiply-adds: same bits as amd64.
		y[i] = 16 + (float64(65.481*r)+float64(128.553*g)+float64(24.966*b))/255
	}
	return y
}

// SRPSNR returns the PSNR (peak 255) of two images as super-resolution
// papers report it: both rounded to 8 bits, shave pixels cropped from
// every border (the scale factor, by convention), and compared on the Y
// channel (Luma) if y, on every channel otherwise.
func SRPSNR(a, b Pixels, shave int, y bool) (float64, error) {
	if a.Width != b.Width || a.Height != b.Height || a.Channels != b.Channels {
		return 0, fmt.Errorf("eval: images differ in size or channels: %dx%dx%d and %dx%dx%d",
			a.Width, a.Height, a.Channels, b.Width, b.Height, b.Channels)
	}
	if shave < 0 || 2*shave >= a.Width || 2*shave >= a.Height {
		return 0, fmt.Errorf("eval: shaving %d pixels leaves nothing of %dx%d", shave, a.Width, a.Height)
	}
	ch := a.Channels
	var va, vb []float64
	if y {
		va, vb, ch = Luma(a), Luma(b), 1
	} else {
		va, vb = make([]float64, len(a.Pix)), make([]float64, len(b.Pix))
		for i := range va {
			va[i] = float64(datasets.Round8(float64(a.Pix[i])))
			vb[i] = float64(datasets.Round8(float64(b.Pix[i])))
		}
	}
	var sum float64
	n := 0
	for r := shave; r < a.Height-shave; r++ {
		for c := shave; c < a.Width-shave; c++ {
			for k := range ch {
				i := (r*a.Width+c)*ch + k
				d := va[i] - vb[i]
				sum += float64(d * d) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
				n++
			}
		}
	}
	if sum == 0 {
		return math.Inf(1), nil
	}
	return 10 * math.Log10(255*255/(sum/float64(n))), nil
}

// FileSRPSNR decodes two image files and returns their SRPSNR.
func FileSRPSNR(a, b string, shave int, y bool) (float64, error) {
	ia, err := datasets.OpenImage(a)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	ib, err := datasets.OpenImage(b)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	p, err := SRPSNR(PixelsOf(ia), PixelsOf(ib), shave, y)
	if err != nil {
		return 0, fmt.Errorf("%w (%s, %s)", err, a, b)
	}
	return p, nil
}

func init() { Register("y-psnr", yPSNRMetric{}) }

// yPSNRMetric is the registered "y-psnr".
type yPSNRMetric struct{}

func (yPSNRMetric) Summary() string {
	return "PSNR (dB, peak 255) of the luma Y of BT.601 (MATLAB rgb2ycbcr), images rounded to 8 bits and Options.Shave pixels cropped from every border (SRPSNR)"
}

func (yPSNRMetric) ComparePair(ref, test Pixels, o Options) (float64, error) {
	if err := shavedPeak(o); err != nil {
		return 0, err
	}
	return SRPSNR(ref, test, o.Shave, true)
}
