package gemm

// The kernels go through the column matrix a row (c, i, j) at a time, as
// the definition does, with what depends only on the kernel offset worked
// out once rather than per output row: the span of output rows whose
// input row lies in the image, the span of output columns whose input
// column does (kernelSpans), and the index of the first input pixel. The
// rows of the models are short (7 or 14 columns), so the divisions and
// tests that used to run per output row cost more than the data
// movement. Horizontal strides 1 and 2, all the models use, have their own
// inner loops with constant steps.
//
// col2im adds every entry to its pixel in the order of the definition's
// loops, row by row of the column matrix: each pixel receives its terms in
// the same order as ever, so the sums are bit for bit those of the plain
// loops (and of the trained weights the golden tests pin).

// A span is a range [lo, hi) of output positions along one axis.
type span struct{ lo, hi int }

// kernelSpans returns, for each kernel row i, the output rows whose input
// row lies in the image, and for each kernel column j the output columns
// whose input column does. buf may hold them.
func kernelSpans(g Geom, buf []span) (ys, xs []span) {
	if len(buf) < g.KH+g.KW {
		buf = make([]span, g.KH+g.KW)
	}
	ys, xs = buf[:g.KH], buf[g.KH:g.KH+g.KW]
	for i := range ys {
		ys[i].lo, ys[i].hi = validCols(i-g.PH, g.SH, g.H, g.OH)
	}
	for j := range xs {
		xs[j].lo, xs[j].hi = validCols(j-g.PW, g.SW, g.W, g.OW)
	}
	return ys, xs
}

func im2col[T Float](dst []T, ld int, src []T, g Geom) {
	var buf [16]span
	ys, xs := kernelSpans(g, buf[:])
	hw, kk := g.H*g.W, g.KH*g.KW
	for c := 0; c < g.C; c++ {
		im2colChan(dst[c*kk*ld:], ld, src[c*hw:(c+1)*hw], g, ys, xs)
	}
}

// im2colChan writes the KH·KW rows (ld apart) of the column matrix of one
// channel, img.
func im2colChan[T Float](dst []T, ld int, img []T, g Geom, ys, xs []span) {
	ow, p := g.OW, g.Cols()
	step := g.SH * g.W // input index from one output row to the next
	r := 0
	for i, y := range ys {
		for j, x := range xs {
			row := dst[r*ld : r*ld+p]
			r++
			if x.lo == x.hi || y.lo == y.hi {
				clear(row)
				continue
			}
			if x.lo > 0 || x.hi < ow {
				clear(row) // simpler than zeroing the ends of every output row
			} else {
				clear(row[:y.lo*ow])
				clear(row[y.hi*ow:])
			}
			s := (y.lo*g.SH-g.PH+i)*g.W + x.lo*g.SW - g.PW + j
			out := row[y.lo*ow+x.lo : (y.hi-1)*ow+x.hi]
			switch g.SW {
			case 1:
				pick1(out, ow, x.hi-x.lo, img, s, step)
			case 2:
				pick2(out, ow, x.hi-x.lo, img, s, step)
			default:
				pickN(out, ow, x.hi-x.lo, img, s, step, g.SW)
			}
		}
	}
}

// pick1 copies img to the output rows out, ow apart, n columns each: the
// row at o from img[s:], s moving by step from one to the next.
//
//go:noinline
func pick1[T Float](out []T, ow, n int, img []T, s, step int) {
	for o := 0; o < len(out); o += ow {
		copy(out[o:o+n], img[s:s+n])
		s += step
	}
}

// pick2 is pick1 with the input columns 2 apart.
//
//go:noinline
func pick2[T Float](out []T, ow, n int, img []T, s, step int) {
	if o, ok := any(out).([]float32); ok && pick2Fast(o, ow, n, any(img).([]float32), s, step) {
		return
	}
	for o := 0; o < len(out); o += ow {
		d, in := out[o:o+n], img[s:s+2*n-1]
		for k := range d {
			d[k] = in[2*k]
		}
		s += step
	}
}

// pickN is pick1 with the input columns sw apart.
//
//go:noinline
func pickN[T Float](out []T, ow, n int, img []T, s, step, sw int) {
	for o := 0; o < len(out); o += ow {
		d, in := out[o:o+n], img[s:s+sw*(n-1)+1]
		for k := range d {
			d[k] = in[sw*k]
		}
		s += step
	}
}

func col2im[T Float](dst []T, src []T, ld int, g Geom) {
	var buf [16]span
	ys, xs := kernelSpans(g, buf[:])
	hw, kk := g.H*g.W, g.KH*g.KW
	for c := 0; c < g.C; c++ {
		col2imChan(dst[c*hw:(c+1)*hw], src[c*kk*ld:], ld, g, ys, xs)
	}
}

// col2imChan adds the KH·KW rows (ld apart) of the column matrix of one
// channel into img.
func col2imChan[T Float](img []T, src []T, ld int, g Geom, ys, xs []span) {
	ow := g.OW
	step := g.SH * g.W
	r := 0
	for i, y := range ys {
		for j, x := range xs {
			row := src[r*ld:]
			r++
			if x.lo == x.hi || y.lo == y.hi {
				continue
			}
			d := (y.lo*g.SH-g.PH+i)*g.W + x.lo*g.SW - g.PW + j
			in := row[y.lo*ow+x.lo : (y.hi-1)*ow+x.hi]
			switch g.SW {
			case 1:
				put1(img, d, step, in, ow, x.hi-x.lo)
			case 2:
				put2(img, d, step, in, ow, x.hi-x.lo)
			default:
				putN(img, d, step, in, ow, x.hi-x.lo, g.SW)
			}
		}
	}
}

// put1 adds the rows of in, ow apart, n columns each, into img: the row
// at o to img[d:], d moving by step from one to the next.
//
//go:noinline
func put1[T Float](img []T, d, step int, in []T, ow, n int) {
	for o := 0; o < len(in); o += ow {
		s, out := in[o:o+n], img[d:d+n]
		for k, v := range s {
			out[k] += v
		}
		d += step
	}
}

// put2 is put1 with the image columns 2 apart.
//
//go:noinline
func put2[T Float](img []T, d, step int, in []T, ow, n int) {
	if im, ok := any(img).([]float32); ok && put2Fast(im, d, step, any(in).([]float32), ow, n) {
		return
	}
	for o := 0; o < len(in); o += ow {
		s, out := in[o:o+n], img[d:d+2*n-1]
		for k, v := range s {
			out[2*k] += v
		}
		d += step
	}
}

// putN is put1 with the image columns sw apart.
//
//go:noinline
func putN[T Float](img []T, d, step int, in []T, ow, n, sw int) {
	for o := 0; o < len(in); o += ow {
		s, out := in[o:o+n], img[d:d+sw*(n-1)+1]
		for k, v := range s {
			out[sw*k] += v
		}
		d += step
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

// wholeImage reports whether the kernel covers exactly the unpadded image,
// with one output position: then the column matrix of a batch is the
// batch's transpose, row (c·KH+i)·KW+j holding pixel (c, i, j) of every
// image (as for the first and last layers of DCGAN).
func wholeImage(g Geom) bool {
	return g.PH == 0 && g.PW == 0 && g.KH == g.H && g.KW == g.W
}

// tileRows is the number of rows of the column matrix one pass of the
// transposes covers: a cache line of float32 pixels per image.
const tileRows = 16

// im2colWhole sets rows [r0, r1) of the column matrix dst (ld = n) of the
// n images of src, each of r pixels, for wholeImage geometries.
func im2colWhole[T Float](dst, src []T, n, r, r0, r1 int) {
	for b := 0; b < n; b++ {
		s := src[b*r+r0 : b*r+r1]
		for k, v := range s {
			dst[(r0+k)*n+b] = v
		}
	}
}

// col2imWhole sets pixels [r0, r1) of the n images of dst, each of r
// pixels, from the column matrix src (ld = n), for wholeImage geometries.
// Each pixel has one term, added to zero as Col2im would (0 + -0 is +0).
func col2imWhole[T Float](dst, src []T, n, r, r0, r1 int) {
	var rows, imgs int
	if d, ok := any(dst).([]float32); ok {
		rows, imgs = col2imWholeFast(d, any(src).([]float32), n, r, r0, r1)
	}
	// What the kernel left: the images after the first imgs, and the
	// rows after the first rows of those.
	for b := 0; b < n; b++ {
		lo := r0
		if b < imgs {
			lo += rows
		}
		d := dst[b*r+lo : b*r+r1]
		for k := range d {
			d[k] = 0 + src[(lo+k)*n+b]
		}
	}
}
