package featnet

// Resize resizes n planes of h×w float32 values in src to oh×ow in dst by
// bilinear interpolation, exactly as PyTorch's
// F.interpolate(x, size=(oh, ow), mode="bilinear", align_corners=False)
// without antialiasing: output pixel i samples the input at
// (i + 0.5)·h/oh - 0.5, clamped below at 0, between the two nearest rows
// (the last row repeats at the border), and likewise along the width.
// It panics if the slices are shorter than n planes.
func Resize(dst, src []float32, n, h, w, oh, ow int) {
	if n < 0 || h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || len(src) < n*h*w || len(dst) < n*oh*ow {
		panic("featnet: resize: bad sizes")
	}
	ys, xs := resizeTaps(h, oh), resizeTaps(w, ow)
	for p := 0; p < n; p++ {
		resizePlane(dst[p*oh*ow:(p+1)*oh*ow], src[p*h*w:(p+1)*h*w], w, ys, xs)
	}
}

// tap is one output coordinate's two source indices and weights.
type tap struct {
	i0, i1 int
	w0, w1 float32
}

// resizeTaps returns the taps of the out positions along an axis of
// length in, computed in float32 as PyTorch's
// area_pixel_compute_source_index does.
func resizeTaps(in, out int) []tap {
	scale := float32(in) / float32(out)
	ts := make([]tap, out)
	for i := range ts {
		src := scale*(float32(i)+0.5) - 0.5
		if src < 0 {
			src = 0
		}
		i0 := int(src)
		d := 0
		if i0 < in-1 {
			d = 1
		}
		l1 := src - float32(i0)
		ts[i] = tap{i0: i0, i1: i0 + d, w0: 1 - l1, w1: l1}
	}
	return ts
}
