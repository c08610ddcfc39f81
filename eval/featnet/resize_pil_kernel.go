package featnet

// pilPass is ImagingResampleHorizontal_32bpc: each of n rows of w values
// resampled to ow with taps, the sum in float64 stored as float32.
func pilPass(dst, src []float32, n, w, ow int, taps []pilTap) {
	for r := range n {
		in := src[r*w : (r+1)*w]
		out := dst[r*ow : (r+1)*ow]
		for x, t := range taps {
			var s float64
			for i, k := range t.k {
				s += float64(float64(in[t.min+i]) * k) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
			}
			out[x] = float32(s)
		}
	}
}

// pilPassVertical is ImagingResampleVertical_32bpc: columns of the w-wide
// plane src resampled with taps into dst.
func pilPassVertical(dst, src []float32, w int, taps []pilTap) {
	for y, t := range taps {
		out := dst[y*w : (y+1)*w]
		for x := range out {
			var s float64
			for i, k := range t.k {
				s += float64(float64(src[(t.min+i)*w+x]) * k) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
			}
			out[x] = float32(s)
		}
	}
}
