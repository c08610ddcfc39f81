package eval

import (
	"fmt"
	"image"
	"math"

	"github.com/positgan/positgan/datasets"
)

// SSIM constants of Wang et al. (2004) as scikit-image applies them with
// gaussian_weights=True: a Gaussian window of σ 1.5 truncated at 3.5σ
// (11 taps), K1 0.01, K2 0.03.
const (
	ssimSigma = 1.5
	ssimK1    = 0.01
	ssimK2    = 0.03
	ssimR     = 5 // int(3.5σ + 0.5): the window is 2·5+1 = 11 wide
)

// SSIM returns the mean structural similarity index of two images of the
// same size and channel count (Wang, Bovik, Sheikh and Simoncelli, IEEE
// TIP 2004), computed as scikit-image's
//
//	structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
//	    use_sample_covariance=False, data_range=dataRange, channel_axis=-1)
//
// computes it: local means, variances and covariance from a Gaussian
// filter (σ 1.5, 11 taps, image edges reflected as scipy's "reflect"
// mode does), the SSIM map averaged over the pixels at least 5 from every
// edge, and the channels averaged. dataRange is 255 for 8-bit images.
// Images smaller than 11x11 are an error, as in scikit-image.
func SSIM(a, b Pixels, dataRange float64) (float64, error) {
	switch {
	case a.Width != b.Width || a.Height != b.Height:
		return 0, fmt.Errorf("eval: SSIM: image sizes differ: %dx%d and %dx%d", a.Width, a.Height, b.Width, b.Height)
	case a.Channels != b.Channels:
		return 0, fmt.Errorf("eval: SSIM: channel counts differ: %d and %d (gray and colour)", a.Channels, b.Channels)
	case a.Width < 2*ssimR+1 || a.Height < 2*ssimR+1:
		return 0, fmt.Errorf("eval: SSIM: image of %dx%d is smaller than the 11x11 window", a.Width, a.Height)
	case len(a.Pix) != a.Width*a.Height*a.Channels || len(b.Pix) != len(a.Pix):
		return 0, fmt.Errorf("eval: SSIM: pixel data do not match the image size")
	case !(dataRange > 0) || math.IsInf(dataRange, 0):
		return 0, fmt.Errorf("eval: SSIM: data range %g is not positive and finite", dataRange)
	}
	w, h, nc := a.Width, a.Height, a.Channels
	x := make([]float64, w*h)
	y := make([]float64, w*h)
	var sum float64
	for c := range nc {
		for i := range x {
			x[i] = float64(a.Pix[i*nc+c])
			y[i] = float64(b.Pix[i*nc+c])
		}
		sum += ssimChannel(x, y, w, h, dataRange)
	}
	return sum / float64(nc), nil
}

// ImageSSIM returns the SSIM of two images (see PixelsOf) on the 8-bit
// scale, data range 255.
func ImageSSIM(a, b image.Image) (float64, error) {
	return SSIM(PixelsOf(a), PixelsOf(b), 255)
}

// FileSSIM decodes two image files as PIL does (datasets.OpenImage) and
// returns their ImageSSIM.
func FileSSIM(a, b string) (float64, error) {
	ia, err := datasets.OpenImage(a)
	if err != nil {
		return 0, err
	}
	ib, err := datasets.OpenImage(b)
	if err != nil {
		return 0, err
	}
	s, err := ImageSSIM(ia, ib)
	if err != nil {
		return 0, fmt.Errorf("%w (%s, %s)", err, a, b)
	}
	return s, nil
}

func init() { Register("ssim", ssimMetric{}) }

// ssimMetric is the registered "ssim".
type ssimMetric struct{}

func (ssimMetric) Summary() string {
	return "SSIM (Wang et al. 2004, as scikit-image computes it), data range 255, mean over channels; Options.Shave pixels cropped from every border first"
}

func (ssimMetric) ComparePair(ref, test Pixels, o Options) (float64, error) {
	if o.Shave != 0 {
		var err error
		if ref, err = shave(ref, o.Shave); err != nil {
			return 0, err
		}
		if test, err = shave(test, o.Shave); err != nil {
			return 0, err
		}
	}
	return SSIM(ref, test, 255)
}

// shave returns p without k pixels at every border.
func shave(p Pixels, k int) (Pixels, error) {
	if k < 0 || 2*k >= p.Width || 2*k >= p.Height {
		return Pixels{}, fmt.Errorf("eval: shaving %d pixels leaves nothing of %dx%d", k, p.Width, p.Height)
	}
	if len(p.Pix) != p.Width*p.Height*p.Channels {
		return Pixels{}, fmt.Errorf("eval: pixel data do not match the image size")
	}
	w, h, nc := p.Width-2*k, p.Height-2*k, p.Channels
	s := Pixels{Width: w, Height: h, Channels: nc, Pix: make([]float32, 0, w*h*nc)}
	for y := k; y < p.Height-k; y++ {
		row := (y*p.Width + k) * nc
		s.Pix = append(s.Pix, p.Pix[row:row+w*nc]...)
	}
	return s, nil
}

// ssimWindow returns scipy's gaussian_filter1d weights for σ 1.5 and
// truncate 3.5: exp(-x²/2σ²) for x in [-5, 5], normalised to sum 1.
func ssimWindow() []float64 {
	k := make([]float64, 2*ssimR+1)
	var s float64
	for i := range k {
		x := float64(i - ssimR)
		k[i] = math.Exp(-0.5 * x * x / (ssimSigma * ssimSigma))
		s += k[i]
	}
	for i := range k {
		k[i] /= s
	}
	return k
}

// reflect maps an index outside [0, n) into it as scipy's "reflect" mode
// (half-sample symmetric: d c b a | a b c d | d c b a) does.
func reflect(i, n int) int {
	for i < 0 || i >= n {
		if i < 0 {
			i = -i - 1
		}
		if i >= n {
			i = 2*n - 1 - i
		}
	}
	return i
}

// ssimChannel returns the mean SSIM of one channel.
func ssimChannel(x, y []float64, w, h int, dataRange float64) float64 {
	k := ssimWindow()
	n := w * h
	prod := func(f func(i int) float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = f(i)
		}
		return gaussian2D(out, w, h, k)
	}
	ux := gaussian2D(append([]float64(nil), x...), w, h, k)
	uy := gaussian2D(append([]float64(nil), y...), w, h, k)
	uxx := prod(func(i int) float64 { return x[i] * x[i] })
	uyy := prod(func(i int) float64 { return y[i] * y[i] })
	uxy := prod(func(i int) float64 { return x[i] * y[i] })
	// float64(…) stops arm64 fusing c1's and c2's products into the sums
	// below: same bits as amd64.
	c1 := float64((ssimK1 * dataRange) * (ssimK1 * dataRange))
	c2 := float64((ssimK2 * dataRange) * (ssimK2 * dataRange))
	var sum float64
	for r := ssimR; r < h-ssimR; r++ {
		for c := ssimR; c < w-ssimR; c++ {
			i := r*w + c
			// float64(…) stops arm64 fusing the multiply-adds: same bits as amd64.
			vx := uxx[i] - float64(ux[i]*ux[i])
			vy := uyy[i] - float64(uy[i]*uy[i])
			vxy := uxy[i] - float64(ux[i]*uy[i])
			a1, a2 := float64(2*ux[i]*uy[i])+c1, float64(2*vxy)+c2
			b1, b2 := float64(ux[i]*ux[i])+float64(uy[i]*uy[i])+c1, vx+vy+c2
			sum += a1 * a2 / (b1 * b2)
		}
	}
	return sum / float64((h-2*ssimR)*(w-2*ssimR))
}

// gaussian2D filters the h×w image v with the separable kernel k, rows
// (the last axis) after columns as scipy.ndimage.gaussian_filter does, in
// place, and returns it.
func gaussian2D(v []float64, w, h int, k []float64) []float64 {
	r := len(k) / 2
	tmp := make([]float64, len(v))
	for y := range h { // axis 0: along columns
		for x := range w {
			var s float64
			for j, kj := range k {
				s += float64(kj * v[reflect(y+j-r, h)*w+x]) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
			}
			tmp[y*w+x] = s
		}
	}
	for y := range h { // axis 1: along rows
		row := tmp[y*w : (y+1)*w]
		for x := range w {
			var s float64
			for j, kj := range k {
				s += float64(kj * row[reflect(x+j-r, w)]) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
			}
			v[y*w+x] = s
		}
	}
	return v
}
