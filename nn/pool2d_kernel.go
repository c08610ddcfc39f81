package nn

import "github.com/positgan/positgan/compute"

// padPool is the geometry of a pool whose window may reach pad pixels
// outside the image on each side.
type padPool struct {
	poolGeom
	pad int
}

// window returns the rows [y0, y1) and columns [x0, x1) of the image that
// output (oy, ox)'s window covers.
func (g padPool) window(oy, ox int) (y0, y1, x0, x1 int) {
	y0, x0 = oy*g.s-g.pad, ox*g.s-g.pad
	return max(y0, 0), min(y0+g.k, g.h), max(x0, 0), min(x0+g.k, g.w)
}

// maxPool sets dst to the window maxima of src and arg to the index in
// its plane of each maximum: the first in row-major order on ties, the
// last NaN if there is one (PyTorch's rule).
func maxPool[T compute.Float](g padPool, dst []T, arg []int32, src []T) {
	for p := 0; p < g.n; p++ {
		img := src[p*g.h*g.w : (p+1)*g.h*g.w]
		out, at := dst[p*g.oh*g.ow:(p+1)*g.oh*g.ow], arg[p*g.oh*g.ow:(p+1)*g.oh*g.ow]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				y0, y1, x0, x1 := g.window(oy, ox)
				best := y0*g.w + x0
				for i := y0; i < y1; i++ {
					for j := x0; j < x1; j++ {
						if v := img[i*g.w+j]; v > img[best] || v != v {
							best = i*g.w + j
						}
					}
				}
				out[oy*g.ow+ox], at[oy*g.ow+ox] = img[best], int32(best)
			}
		}
	}
}

func maxPoolBack[T compute.Float](g padPool, dst, dy []T, arg []int32) {
	clear(dst)
	for p := 0; p < g.n; p++ {
		img := dst[p*g.h*g.w : (p+1)*g.h*g.w]
		for i, v := range dy[p*g.oh*g.ow : (p+1)*g.oh*g.ow] {
			img[arg[p*g.oh*g.ow+i]] += v
		}
	}
}

func avgPoolPad[T compute.Float](g padPool, dst, src []T) {
	for p := 0; p < g.n; p++ {
		img := src[p*g.h*g.w : (p+1)*g.h*g.w]
		out := dst[p*g.oh*g.ow : (p+1)*g.oh*g.ow]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				y0, y1, x0, x1 := g.window(oy, ox)
				var s T
				for i := y0; i < y1; i++ {
					for _, v := range img[i*g.w+x0 : i*g.w+x1] {
						s += v
					}
				}
				out[oy*g.ow+ox] = s / T((y1-y0)*(x1-x0))
			}
		}
	}
}

func avgPoolPadBack[T compute.Float](g padPool, dst, dy []T) {
	clear(dst)
	for p := 0; p < g.n; p++ {
		img := dst[p*g.h*g.w : (p+1)*g.h*g.w]
		d := dy[p*g.oh*g.ow : (p+1)*g.oh*g.ow]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				y0, y1, x0, x1 := g.window(oy, ox)
				v := d[oy*g.ow+ox] / T((y1-y0)*(x1-x0))
				for i := y0; i < y1; i++ {
					row := img[i*g.w+x0 : i*g.w+x1]
					for j := range row {
						row[j] += v
					}
				}
			}
		}
	}
}
