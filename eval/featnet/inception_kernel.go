package featnet

import (
	"math"

	"github.com/positgan/positgan/compute"
)

// apply returns relu(conv(x)·scale + shift), the folded BasicConv2d.
func (l *convBN) apply(ws *inceptionWork, x t3) t3 {
	g := compute.Geom{C: x.c, H: x.h, W: x.w, KH: l.kh, KW: l.kw, SH: l.s, SW: l.sw, PH: l.ph, PW: l.pw}
	g.OH = (x.h+2*l.ph-l.kh)/l.s + 1
	g.OW = (x.w+2*l.pw-l.kw)/l.sw + 1
	y := t3{l.outC, g.OH, g.OW, make([]float32, l.outC*g.OH*g.OW)}
	cols := g.Rows()
	col := x.d
	if !(l.kh == 1 && l.kw == 1 && l.s == 1 && l.ph == 0 && l.pw == 0) {
		ws.col = grow(ws.col, g.Rows()*g.Cols())
		compute.Im2col(ws.col, g.Cols(), x.d, g)
		col = ws.col
	}
	compute.Gemm(false, false, l.outC, g.Cols(), cols, 1, l.w, cols, col, g.Cols(), 0, y.d, g.Cols())
	p := g.Cols()
	for o := 0; o < l.outC; o++ {
		b := l.b[o]
		row := y.d[o*p : (o+1)*p]
		for i, v := range row {
			row[i] = max(v+b, 0)
		}
	}
	return y
}

// maxPool is F.max_pool2d(x, k, stride, padding) (padding never wins).
func maxPool(x t3, k, stride, pad int) t3 {
	oh, ow := (x.h+2*pad-k)/stride+1, (x.w+2*pad-k)/stride+1
	y := t3{x.c, oh, ow, make([]float32, x.c*oh*ow)}
	for c := 0; c < x.c; c++ {
		src, dst := x.d[c*x.h*x.w:(c+1)*x.h*x.w], y.d[c*oh*ow:(c+1)*oh*ow]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				m := float32(math.Inf(-1))
				for i := oy*stride - pad; i < oy*stride-pad+k; i++ {
					if i < 0 || i >= x.h {
						continue
					}
					for j := ox*stride - pad; j < ox*stride-pad+k; j++ {
						if j >= 0 && j < x.w {
							m = max(m, src[i*x.w+j])
						}
					}
				}
				dst[oy*ow+ox] = m
			}
		}
	}
	return y
}

// avgPool3 is F.avg_pool2d(x, 3, stride=1, padding=1,
// count_include_pad=False): each output averages the pixels of its 3×3
// window that lie inside the image.
func avgPool3(x t3) t3 {
	y := t3{x.c, x.h, x.w, make([]float32, len(x.d))}
	for c := 0; c < x.c; c++ {
		src, dst := x.d[c*x.h*x.w:(c+1)*x.h*x.w], y.d[c*x.h*x.w:(c+1)*x.h*x.w]
		for oy := 0; oy < x.h; oy++ {
			for ox := 0; ox < x.w; ox++ {
				var s float32
				n := 0
				for i := max(oy-1, 0); i <= min(oy+1, x.h-1); i++ {
					for j := max(ox-1, 0); j <= min(ox+1, x.w-1); j++ {
						s += src[i*x.w+j]
						n++
					}
				}
				dst[oy*x.w+ox] = s / float32(n)
			}
		}
	}
	return y
}

// cat concatenates activations of equal size along the channels.
func cat(ts ...t3) t3 {
	y := t3{0, ts[0].h, ts[0].w, nil}
	for _, t := range ts {
		if t.h != y.h || t.w != y.w {
			panic("featnet: concatenating activations of different sizes")
		}
		y.c += t.c
		y.d = append(y.d, t.d...)
	}
	return y
}

// spatialMean averages each channel over its pixels (adaptive average
// pooling to 1×1), summing in float64.
func spatialMean(x t3) []float32 {
	out := make([]float32, x.c)
	p := x.h * x.w
	for c := range out {
		var s float64
		for _, v := range x.d[c*p : (c+1)*p] {
			s += float64(v)
		}
		out[c] = float32(s / float64(p))
	}
	return out
}
