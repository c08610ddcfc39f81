package featnet

import "math"

// resizePlane interpolates one plane as PyTorch 1.13's CPU kernel for
// NCHW float tensors does (upsample_generic_Nd_kernel_impl, built with
// FMA contraction): along the width t = fma(a, w0, b·w1) for the two
// rows, then fma(t0, h0, t1·h1), each product and fma rounded once to
// float32. Found by measurement against the library (TestResizeTorch);
// the plain float32 expression h0·(w0·a + w1·b) + h1·(w0·c + w1·d)
// disagrees on most pixels.
func resizePlane(dst, src []float32, w int, ys, xs []tap) {
	ow := len(xs)
	for oy, ty := range ys {
		r0, r1 := src[ty.i0*w:(ty.i0+1)*w], src[ty.i1*w:(ty.i1+1)*w]
		d := dst[oy*ow : (oy+1)*ow]
		for ox, tx := range xs {
			t0 := fma32(r0[tx.i0], tx.w0, float32(r0[tx.i1]*tx.w1))
			t1 := fma32(r1[tx.i0], tx.w0, float32(r1[tx.i1]*tx.w1))
			d[ox] = fma32(t0, ty.w0, float32(t1*ty.w1))
		}
	}
}

// resizePixel fills a plane from a single input pixel v as PyTorch 1.13
// does for a 1×1 input, which it treats as channels-last
// (cpu_upsample_linear_channels_last): Σ float32(hᵢ·wⱼ)·v over the four
// taps, summed in float64 and rounded once.
func resizePixel(dst []float32, v float32, ys, xs []tap) {
	ow := len(xs)
	a := float64(v)
	for oy, ty := range ys {
		for ox, tx := range xs {
			p00, p01 := float64(float32(ty.w0*tx.w0)), float64(float32(ty.w0*tx.w1))
			p10, p11 := float64(float32(ty.w1*tx.w0)), float64(float32(ty.w1*tx.w1))
			dst[oy*ow+ox] = float32(float64(p00*a) + float64(p01*a) + float64(p10*a) + float64(p11*a))
		}
	}
}

// fma32 returns a·b + c rounded once to float32. The product is exact in
// float64; the float64 sum is made round-to-odd (its error found by
// TwoSum), which makes the final rounding to float32 correct.
func fma32(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b))
	q := float64(c)
	s := p + q
	bb := s - p
	e := (p - (s - bb)) + (q - bb)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		s = math.Nextafter(s, math.Copysign(math.Inf(1), e))
	}
	return float32(s)
}
