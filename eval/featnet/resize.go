package featnet

// Resize resizes n planes of h×w float32 values in src to oh×ow in dst by
// bilinear interpolation, bit-exactly as PyTorch 1.13's CPU
// F.interpolate(x, size=(oh, ow), mode="bilinear", align_corners=False)
// without antialiasing (the resize of pytorch-fid): output pixel i samples
// the input at (i + 0.5)·scale - 0.5, scale = h/oh in float32 and the
// position in float64, clamped below at 0, between the two nearest rows
// (the last row repeats at the border), and likewise along the width;
// equal sizes copy. The rounding is that of PyTorch's kernel for
// 3-channel (NCHW) images, pytorch-fid's case; PyTorch resizes 1-channel
// and 1×1 tensors with its channels-last kernel, which rounds otherwise
// (1×1 is followed here; 1-channel planes may differ in the last bit).
// TestResizeTorch checks it against PyTorch when python3-torch is
// installed.
// It panics if the slices are shorter than n planes.
func Resize(dst, src []float32, n, h, w, oh, ow int) {
	if n < 0 || h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || len(src) < n*h*w || len(dst) < n*oh*ow {
		panic("featnet: resize: bad sizes")
	}
	ys, xs := resizeTaps(h, oh), resizeTaps(w, ow)
	for p := 0; p < n; p++ {
		if h == 1 && w == 1 {
			resizePixel(dst[p*oh*ow:(p+1)*oh*ow], src[p], ys, xs)
			continue
		}
		resizePlane(dst[p*oh*ow:(p+1)*oh*ow], src[p*h*w:(p+1)*h*w], w, ys, xs)
	}
}

// tap is one output coordinate's two source indices and weights.
type tap struct {
	i0, i1 int
	w0, w1 float32
}

// resizeTaps returns the taps of the out positions along an axis of
// length in, as PyTorch 1.13 computes them: the scale in float32
// (area_pixel_compute_scale), the source position scale·(i + 0.5) - 0.5
// in float64, λ1 its fractional part rounded to float32 and λ0 = 1 - λ1
// in float32. (Rounding the position to float32 first, as the C++ source
// reads, disagrees with the library's output on half the pixels; this
// agrees on all that TestResizeTorch checks.)
func resizeTaps(in, out int) []tap {
	ts := make([]tap, out)
	if in == out {
		for i := range ts {
			ts[i] = tap{i0: i, i1: i, w0: 1, w1: 0}
		}
		return ts
	}
	scale := float32(in) / float32(out)
	for i := range ts {
		src := float64(float64(scale)*(float64(i)+0.5)) - 0.5 // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
		if src < 0 {
			src = 0
		}
		i0 := int(src)
		d := 0
		if i0 < in-1 {
			d = 1
		}
		l1 := float32(src - float64(i0))
		ts[i] = tap{i0: i0, i1: i0 + d, w0: 1 - l1, w1: l1}
	}
	return ts
}
