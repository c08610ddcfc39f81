package compute

// window returns the rows [y0, y1) and columns [x0, x1) of the image that
// output (oy, ox)'s window covers.
func (g Pool) window(oy, ox int) (y0, y1, x0, x1 int) {
	y0, x0 = oy*g.S-g.Pad, ox*g.S-g.Pad
	return max(y0, 0), min(y0+g.K, g.H), max(x0, 0), min(x0+g.K, g.W)
}

// maxPool sets dst to the window maxima of src and arg to the index in
// its plane of each maximum: the first in row-major order on ties, the
// last NaN if there is one (PyTorch's rule).
func maxPool[T Float](g Pool, dst []T, arg []int32, src []T) {
	for p := 0; p < g.N; p++ {
		img := src[p*g.H*g.W : (p+1)*g.H*g.W]
		out, at := dst[p*g.OH*g.OW:(p+1)*g.OH*g.OW], arg[p*g.OH*g.OW:(p+1)*g.OH*g.OW]
		for oy := 0; oy < g.OH; oy++ {
			for ox := 0; ox < g.OW; ox++ {
				y0, y1, x0, x1 := g.window(oy, ox)
				best := y0*g.W + x0
				for i := y0; i < y1; i++ {
					for j := x0; j < x1; j++ {
						if v := img[i*g.W+j]; v > img[best] || v != v {
							best = i*g.W + j
						}
					}
				}
				out[oy*g.OW+ox], at[oy*g.OW+ox] = img[best], int32(best)
			}
		}
	}
}

func maxPoolBack[T Float](g Pool, dst, dy []T, arg []int32) {
	clear(dst)
	for p := 0; p < g.N; p++ {
		img := dst[p*g.H*g.W : (p+1)*g.H*g.W]
		for i, v := range dy[p*g.OH*g.OW : (p+1)*g.OH*g.OW] {
			img[arg[p*g.OH*g.OW+i]] += v
		}
	}
}

func avgPoolPad[T Float](g Pool, dst, src []T) {
	for p := 0; p < g.N; p++ {
		img := src[p*g.H*g.W : (p+1)*g.H*g.W]
		out := dst[p*g.OH*g.OW : (p+1)*g.OH*g.OW]
		for oy := 0; oy < g.OH; oy++ {
			for ox := 0; ox < g.OW; ox++ {
				y0, y1, x0, x1 := g.window(oy, ox)
				var s T
				for i := y0; i < y1; i++ {
					for _, v := range img[i*g.W+x0 : i*g.W+x1] {
						s += v
					}
				}
				out[oy*g.OW+ox] = s / T((y1-y0)*(x1-x0))
			}
		}
	}
}

func avgPoolPadBack[T Float](g Pool, dst, dy []T) {
	clear(dst)
	for p := 0; p < g.N; p++ {
		img := dst[p*g.H*g.W : (p+1)*g.H*g.W]
		d := dy[p*g.OH*g.OW : (p+1)*g.OH*g.OW]
		for oy := 0; oy < g.OH; oy++ {
			for ox := 0; ox < g.OW; ox++ {
				y0, y1, x0, x1 := g.window(oy, ox)
				v := d[oy*g.OW+ox] / T((y1-y0)*(x1-x0))
				for i := y0; i < y1; i++ {
					row := img[i*g.W+x0 : i*g.W+x1]
					for j := range row {
						row[j] += v
					}
				}
			}
		}
	}
}
