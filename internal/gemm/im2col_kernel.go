package gemm

func im2col[T Float](dst []T, ld int, src []T, g Geom) {
	r := 0
	for c := 0; c < g.C; c++ {
		img := src[c*g.H*g.W : (c+1)*g.H*g.W]
		for i := 0; i < g.KH; i++ {
			for j := 0; j < g.KW; j++ {
				row := dst[r*ld : r*ld+g.Cols()]
				r++
				p := 0
				for oy := 0; oy < g.OH; oy++ {
					out := row[p : p+g.OW]
					p += g.OW
					iy := oy*g.SH - g.PH + i
					if iy < 0 || iy >= g.H {
						clear(out)
						continue
					}
					line := img[iy*g.W : (iy+1)*g.W]
					ix := j - g.PW
					lo, hi := validCols(ix, g.SW, g.W, g.OW)
					clear(out[:lo])
					clear(out[hi:])
					if g.SW == 1 {
						copy(out[lo:hi], line[ix+lo:ix+hi])
						continue
					}
					x := ix + lo*g.SW
					for ox := lo; ox < hi; ox++ {
						out[ox] = line[x]
						x += g.SW
					}
				}
			}
		}
	}
}

func col2im[T Float](dst []T, src []T, ld int, g Geom) {
	r := 0
	for c := 0; c < g.C; c++ {
		img := dst[c*g.H*g.W : (c+1)*g.H*g.W]
		for i := 0; i < g.KH; i++ {
			for j := 0; j < g.KW; j++ {
				row := src[r*ld : r*ld+g.Cols()]
				r++
				p := 0
				for oy := 0; oy < g.OH; oy++ {
					in := row[p : p+g.OW]
					p += g.OW
					iy := oy*g.SH - g.PH + i
					if iy < 0 || iy >= g.H {
						continue
					}
					line := img[iy*g.W : (iy+1)*g.W]
					ix := j - g.PW
					lo, hi := validCols(ix, g.SW, g.W, g.OW)
					x := ix + lo*g.SW
					for _, v := range in[lo:hi] {
						line[x] += v
						x += g.SW
					}
				}
			}
		}
	}
}

// validCols returns the range [lo, hi) of output columns ox < ow whose
// input column ix0 + ox·sw lies in [0, w).
func validCols(ix0, sw, w, ow int) (lo, hi int) {
	if ix0 < 0 {
		lo = (-ix0 + sw - 1) / sw
	}
	// ix0 + ox·sw <= w-1  ⇔  ox <= (w-1-ix0)/sw
	if w-1-ix0 < 0 {
		return 0, 0
	}
	hi = min(ow, (w-1-ix0)/sw+1)
	return min(lo, hi), hi
}
