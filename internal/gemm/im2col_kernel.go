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
					if g.SW == 1 && ix >= 0 && ix+g.OW <= g.W {
						copy(out, line[ix:ix+g.OW])
						continue
					}
					for ox := range out {
						if ix >= 0 && ix < g.W {
							out[ox] = line[ix]
						} else {
							out[ox] = 0
						}
						ix += g.SW
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
					for _, v := range in {
						if ix >= 0 && ix < g.W {
							line[ix] += v
						}
						ix += g.SW
					}
				}
			}
		}
	}
}
