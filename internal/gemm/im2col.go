package gemm

import "fmt"

// Geom is the geometry of a 2-D convolution over one C×H×W image: a KH×KW
// kernel moved with strides SH, SW over the image padded by PH rows and PW
// columns of zeros on each side, giving an OH×OW grid of output positions.
type Geom struct {
	C, H, W int
	KH, KW  int
	SH, SW  int
	PH, PW  int
	OH, OW  int
}

// ConvGeom returns the geometry of a convolution of a C×H×W image with a
// kh×kw kernel, stride s and padding p, with OH and OW computed as
// (H + 2p - kh)/s + 1. It returns an error if the output would be empty.
func ConvGeom(c, h, w, kh, kw, s, p int) (Geom, error) {
	g := Geom{C: c, H: h, W: w, KH: kh, KW: kw, SH: s, SW: s, PH: p, PW: p}
	if c <= 0 || h <= 0 || w <= 0 || kh <= 0 || kw <= 0 || s <= 0 || p < 0 {
		return g, fmt.Errorf("gemm: bad convolution: image %dx%dx%d, kernel %dx%d, stride %d, pad %d", c, h, w, kh, kw, s, p)
	}
	g.OH = (h+2*p-kh)/s + 1
	g.OW = (w+2*p-kw)/s + 1
	if h+2*p < kh || w+2*p < kw {
		return g, fmt.Errorf("gemm: kernel %dx%d larger than padded image %dx%d", kh, kw, h+2*p, w+2*p)
	}
	return g, nil
}

// Rows returns the number of rows of the column matrix, C·KH·KW.
func (g Geom) Rows() int { return g.C * g.KH * g.KW }

// Cols returns the number of output positions, OH·OW.
func (g Geom) Cols() int { return g.OH * g.OW }

// Im2col writes the column matrix of the image src (C×H×W, row-major) into
// dst: row (c·KH+i)·KW+j, column oy·OW+ox holds src[c][oy·SH-PH+i][ox·SW-PW+j],
// or zero in the padding. Rows are ld apart, so that the columns of several
// images can sit side by side in one matrix.
func Im2col[T Float](dst []T, ld int, src []T, g Geom) {
	if len(src) < g.C*g.H*g.W || ld < g.Cols() || (g.Rows() > 0 && len(dst) < (g.Rows()-1)*ld+g.Cols()) {
		panic("gemm: im2col: slice too short")
	}
	im2col(dst, ld, src, g)
}

// Col2im adds the column matrix src (rows ld apart) back into the image dst,
// the adjoint of Im2col: every entry is added to the pixel it was copied
// from; entries that came from the padding are dropped.
func Col2im[T Float](dst []T, src []T, ld int, g Geom) {
	if len(dst) < g.C*g.H*g.W || ld < g.Cols() || (g.Rows() > 0 && len(src) < (g.Rows()-1)*ld+g.Cols()) {
		panic("gemm: col2im: slice too short")
	}
	col2im(dst, src, ld, g)
}
