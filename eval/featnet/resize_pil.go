package featnet

import "math"

// ResizeBicubicPIL resizes an h×w float32 plane to oh×ow as PIL's
// Image.fromarray(x, mode="F").resize((ow, oh), Image.BICUBIC) does, the
// resize of clean-fid's "clean" mode: the bicubic kernel with a = -0.5,
// widened by the scale when shrinking (antialiasing), weights computed in
// float64 and normalised to sum 1, a horizontal pass then a vertical one
// (each sum in float64, stored as float32); equal sizes copy.
// TestResizeBicubicPIL checks it against PIL 9.4. It panics if the slices
// are too short.
func ResizeBicubicPIL(dst, src []float32, h, w, oh, ow int) {
	if h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || len(src) < h*w || len(dst) < oh*ow {
		panic("featnet: bicubic resize: bad sizes")
	}
	if h == oh && w == ow {
		copy(dst, src[:h*w])
		return
	}
	xs, ys := pilCoeffs(w, ow), pilCoeffs(h, oh)
	// Only the rows the vertical pass reads are resized horizontally.
	first, last := ys[0].min, ys[oh-1].min+len(ys[oh-1].k)
	rows, tw := src[first*w:last*w], ow
	if w == ow {
		tw = w
	} else {
		tmp := make([]float32, (last-first)*ow)
		pilPass(tmp, rows, last-first, w, ow, xs)
		rows = tmp
	}
	if h == oh {
		copy(dst, rows[:oh*tw])
		return
	}
	for i := range ys {
		ys[i].min -= first
	}
	pilPassVertical(dst, rows, tw, ys)
}

// pilTap is one output position's first input index and normalised
// weights.
type pilTap struct {
	min int
	k   []float64
}

// pilCoeffs is PIL's precompute_coeffs (Resample.c) for the bicubic
// filter over the whole axis (box 0 to in).
func pilCoeffs(in, out int) []pilTap {
	scale := float64(float32(in)) / float64(out)
	filterscale := max(scale, 1)
	support := 2 * filterscale
	ss := 1 / filterscale
	taps := make([]pilTap, out)
	for xx := range taps {
		// float64(…) stops arm64 fusing center's product into the sums
		// below: same bits as amd64.
		center := float64((float64(xx) + 0.5) * scale)
		xmin := max(int(center-support+0.5), 0)
		xmax := min(int(center+support+0.5), in) - xmin
		k := make([]float64, max(xmax, 0))
		var ww float64
		for x := range k {
			w := bicubic((float64(x+xmin) - center + 0.5) * ss)
			k[x] = w
			ww += w
		}
		if ww != 0 {
			for x := range k {
				k[x] /= ww
			}
		}
		taps[xx] = pilTap{min: xmin, k: k}
	}
	return taps
}

// bicubic is PIL's bicubic_filter: Keys' cubic convolution, a = -0.5.
func bicubic(x float64) float64 {
	const a = -0.5
	x = math.Abs(x)
	// float64(…) stops arm64 fusing the multiply-adds: same bits as amd64.
	if x < 1 {
		p := float64((a+2)*x) - (a + 3)
		return float64(p*x*x) + 1
	}
	if x < 2 {
		p := float64((x-5)*x) + 8
		return (float64(p*x) - 4) * a
	}
	return 0
}
