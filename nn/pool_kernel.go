package nn

import "github.com/positgan/positgan/compute"

// poolGeom is the geometry of pooling n planes of h×w with a k×k window
// and stride s into oh×ow.
type poolGeom struct{ n, h, w, k, s, oh, ow int }

func avgPool[T compute.Float](g poolGeom, dst, src []T) {
	inv := 1 / T(g.k*g.k)
	for p := 0; p < g.n; p++ {
		img := src[p*g.h*g.w : (p+1)*g.h*g.w]
		out := dst[p*g.oh*g.ow : (p+1)*g.oh*g.ow]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				var s T
				for i := 0; i < g.k; i++ {
					row := img[(oy*g.s+i)*g.w+ox*g.s:]
					for _, v := range row[:g.k] {
						s += v
					}
				}
				out[oy*g.ow+ox] = s * inv
			}
		}
	}
}

func avgPoolBack[T compute.Float](g poolGeom, dst, dy []T) {
	clear(dst)
	inv := 1 / T(g.k*g.k)
	for p := 0; p < g.n; p++ {
		img := dst[p*g.h*g.w : (p+1)*g.h*g.w]
		d := dy[p*g.oh*g.ow : (p+1)*g.oh*g.ow]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				v := d[oy*g.ow+ox] * inv
				for i := 0; i < g.k; i++ {
					row := img[(oy*g.s+i)*g.w+ox*g.s:]
					for j := range row[:g.k] {
						row[j] += v
					}
				}
			}
		}
	}
}

func upsample[T compute.Float](dst, src []T, n, h, w, s int) {
	ow := w * s
	for p := 0; p < n*h; p++ { // one input row at a time
		in := src[p*w : (p+1)*w]
		out := dst[p*s*ow : (p+1)*s*ow]
		first := out[:ow]
		for x, v := range in {
			for j := range first[x*s : (x+1)*s] {
				first[x*s+j] = v
			}
		}
		for r := 1; r < s; r++ {
			copy(out[r*ow:(r+1)*ow], first)
		}
	}
}

func upsampleBack[T compute.Float](dst, dy []T, n, h, w, s int) {
	ow := w * s
	for p := 0; p < n*h; p++ {
		out := dst[p*w : (p+1)*w]
		in := dy[p*s*ow : (p+1)*s*ow]
		for x := range out {
			var sum T
			for r := 0; r < s; r++ {
				for _, v := range in[r*ow+x*s : r*ow+(x+1)*s] {
					sum += v
				}
			}
			out[x] = sum
		}
	}
}
