package datasets

import (
	"fmt"
	"image"
	"math"
)

// Bicubic resizing as MATLAB's imresize(I, scale) does it with its default
// method "bicubic" (and antialiasing on): the cubic convolution kernel of
// Keys with a = -0.5,
//
//	cubic(x) = 1.5|x|³ - 2.5|x|² + 1            for |x| ≤ 1,
//	           -0.5|x|³ + 2.5|x|² - 4|x| + 2    for 1 < |x| ≤ 2, 0 beyond;
//
// when shrinking by scale s < 1, the kernel is stretched to s·cubic(s·x),
// 4/s input pixels wide (the antialiasing); output pixel i (from 1) is
// centred on input coordinate u = i/s + ½(1 - 1/s); the weights of each
// output are normalised to sum to 1; input indices outside the image are
// mirrored (…, 2, 1, 1, 2, …, n, n, n-1, …). Rows are resized first, then
// columns, in float64; the result is rounded once (half away from zero)
// and clamped to 8 bits when images are written. This is what super-
// resolution papers use to make their low-resolution inputs (BasicSR's
// matlab_functions.imresize is the same algorithm in Python).

// cubicKernel is Keys' cubic convolution kernel with a = -0.5.
func cubicKernel(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x <= 1:
		return float64((float64(1.5*x)-2.5)*x*x) + 1
	case x <= 2:
		return float64((float64((float64(-0.5*x)+2.5)*x)-4)*x) + 2
	}
	return 0
}

// resizeWeights are the contributions of one dimension: output i is
// Σ_k w[i*p+k]·in[idx[i*p+k]].
type resizeWeights struct {
	p   int // taps per output
	w   []float64
	idx []int
}

// bicubicWeights returns imresize's contributions for resizing a dimension
// of n values to m values by scale (m/n for the usual case).
func bicubicWeights(n, m int, scale float64) resizeWeights {
	width := 4.0
	h := cubicKernel
	if scale < 1 {
		width /= scale
		h = func(x float64) float64 { return scale * cubicKernel(scale*x) }
	}
	p := int(math.Ceil(width)) + 2
	rw := resizeWeights{p: p, w: make([]float64, m*p), idx: make([]int, m*p)}
	for i := range m {
		u := float64(i+1)/scale + float64(0.5*(1-1/scale))
		left := math.Floor(u - float64(width/2))
		var sum float64
		for k := range p {
			j := left + float64(k)
			w := h(u - j)
			rw.w[i*p+k] = w
			sum += w
			rw.idx[i*p+k] = mirror(int(j)-1, n)
		}
		for k := range p {
			rw.w[i*p+k] /= sum
		}
	}
	return rw
}

// mirror maps the 0-based index j to [0, n) by symmetric extension with
// the edge values repeated (MATLAB's aux = [1:n, n:-1:1]).
func mirror(j, n int) int {
	j %= 2 * n
	if j < 0 {
		j += 2 * n
	}
	if j >= n {
		j = 2*n - 1 - j
	}
	return j
}

// ResizedLen returns imresize's output length for n values at scale:
// ⌈n·scale⌉.
func ResizedLen(n int, scale float64) int { return int(math.Ceil(float64(n) * scale)) }

// Bicubic resizes the c planes of h×w values in src by scale (0.25 to
// shrink by 4, 4 to enlarge by 4) as MATLAB's imresize does (see above),
// without rounding, and returns the planes of ResizedLen(h, scale) ×
// ResizedLen(w, scale) values and their size.
func Bicubic(src []float64, c, h, w int, scale float64) (dst []float64, oh, ow int) {
	if len(src) != c*h*w || h <= 0 || w <= 0 || !(scale > 0) || math.IsInf(scale, 0) {
		panic(fmt.Sprintf("datasets: Bicubic of %d values as %dx%dx%d by %v", len(src), c, h, w, scale))
	}
	oh, ow = ResizedLen(h, scale), ResizedLen(w, scale)
	rows, cols := bicubicWeights(h, oh, scale), bicubicWeights(w, ow, scale)
	tmp := make([]float64, oh*w)
	dst = make([]float64, c*oh*ow)
	for ch := range c {
		in := src[ch*h*w : (ch+1)*h*w]
		for i := range oh { // along the height
			row := tmp[i*w : (i+1)*w]
			clear(row)
			for k := range rows.p {
				wt, r := rows.w[i*rows.p+k], in[rows.idx[i*rows.p+k]*w:][:w]
				for x, v := range r {
					row[x] += float64(wt * v) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
				}
			}
		}
		out := dst[ch*oh*ow : (ch+1)*oh*ow]
		for y := range oh { // along the width
			r := tmp[y*w : (y+1)*w]
			for j := range ow {
				var s float64
				for k := range cols.p {
					s += float64(cols.w[j*cols.p+k] * r[cols.idx[j*cols.p+k]])
				}
				out[y*ow+j] = s
			}
		}
	}
	return dst, oh, ow
}

// Round8 rounds v to an 8-bit value as MATLAB converts double to uint8:
// to the nearest integer, halves away from zero, clamped to [0, 255].
func Round8(v float64) uint8 {
	switch {
	case !(v > 0): // also NaN
		return 0
	case v >= 255:
		return 255
	}
	return uint8(math.Floor(float64(v) + 0.5)) // float64(…): not fused with an inlined caller's product on arm64
}

// Planes returns the pixels of img as 3 planes (R, G, B) of 8-bit values
// in float64, and its size. Transparency is dropped.
func Planes(img image.Image) (pix []float64, h, w int) {
	m := toNRGBA(img)
	h, w = m.Rect.Dy(), m.Rect.Dx()
	pix = make([]float64, 3*h*w)
	for y := range h {
		row := m.Pix[y*m.Stride:]
		for x := range w {
			for c := range 3 {
				pix[c*h*w+y*w+x] = float64(row[4*x+c])
			}
		}
	}
	return pix, h, w
}

// FromPlanes returns 3 planes of h×w values on the 8-bit scale as an
// image, each value rounded with Round8.
func FromPlanes(pix []float64, h, w int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			o := y*m.Stride + 4*x
			for c := range 3 {
				m.Pix[o+c] = Round8(pix[c*h*w+y*w+x])
			}
			m.Pix[o+3] = 255
		}
	}
	return m
}

// ModCrop returns img cropped at the bottom and right to a multiple of k
// in both sides, as super-resolution benchmarks crop their ground truth
// before making the low-resolution image.
func ModCrop(img image.Image, k int) image.Image {
	b := img.Bounds()
	r := image.Rect(b.Min.X, b.Min.Y, b.Min.X+b.Dx()/k*k, b.Min.Y+b.Dy()/k*k)
	type sub interface {
		SubImage(image.Rectangle) image.Image
	}
	if s, ok := img.(sub); ok {
		return s.SubImage(r)
	}
	return toNRGBA(img).SubImage(r)
}

// Downscale returns img (cropped to a multiple of k with ModCrop) shrunk
// by the factor k with MATLAB's bicubic imresize, rounded to 8 bits: the
// low-resolution image of super-resolution benchmarks.
func Downscale(img image.Image, k int) *image.NRGBA {
	return ResizeImage(ModCrop(img, k), 1/float64(k))
}

// ResizeImage returns img resized by scale with MATLAB's bicubic imresize,
// rounded to 8 bits.
func ResizeImage(img image.Image, scale float64) *image.NRGBA {
	p, h, w := Planes(img)
	q, oh, ow := Bicubic(p, 3, h, w, scale)
	return FromPlanes(q, oh, ow)
}

func toNRGBA(img image.Image) *image.NRGBA {
	if m, ok := img.(*image.NRGBA); ok && m.Rect.Min == (image.Point{}) {
		return m
	}
	b := img.Bounds()
	m := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			m.Set(x, y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return m
}
