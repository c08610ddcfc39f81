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

// Im2colBatch writes the column matrices of the n images of src
// (n×C×H×W) side by side into dst, a Rows() × n·Cols() matrix: image b's
// in columns [b·Cols(), (b+1)·Cols()). It is Im2col of every image with
// ld = n·Cols(), spread over goroutines by ForEach.
func Im2colBatch[T Float](dst, src []T, n int, g Geom) {
	p, hw, kk := g.Cols(), g.H*g.W, g.KH*g.KW
	ld := n * p
	if n < 0 || len(src) < n*g.C*hw || len(dst) < g.Rows()*ld {
		panic("gemm: im2col: slice too short")
	}
	if wholeImage(g) {
		r := g.Rows()
		ForEach((r+tileRows-1)/tileRows, r*n, func(t int) {
			im2colWhole(dst, src, n, r, t*tileRows, min(r, (t+1)*tileRows))
		})
		return
	}
	var buf [16]span
	ys, xs := kernelSpans(g, buf[:])
	// Image by image, channel by channel: src is read in order (its
	// reads would stall; the scattered writes to dst do not).
	ForEach(n*g.C, g.Rows()*ld, func(k int) {
		b, c := k/g.C, k%g.C
		im2colChan(dst[c*kk*ld+b*p:], ld, src[k*hw:(k+1)*hw], g, ys, xs)
	})
}

// Col2imBatch sets the n images of dst (n×C×H×W) to the adjoint of
// Im2colBatch applied to src (Rows() × n·Cols()): each pixel is zero plus
// its terms, in the order Col2im adds them, bit for bit clear(dst)
// followed by Col2im of every image. It is spread over goroutines by
// ForEach.
func Col2imBatch[T Float](dst, src []T, n int, g Geom) {
	p, hw, kk := g.Cols(), g.H*g.W, g.KH*g.KW
	ld := n * p
	if n < 0 || len(dst) < n*g.C*hw || len(src) < g.Rows()*ld {
		panic("gemm: col2im: slice too short")
	}
	if wholeImage(g) {
		r := g.Rows()
		ForEach((r+tileRows-1)/tileRows, r*n, func(t int) {
			col2imWhole(dst, src, n, r, t*tileRows, min(r, (t+1)*tileRows))
		})
		return
	}
	var buf [16]span
	ys, xs := kernelSpans(g, buf[:])
	// Channel by channel, image by image: src is read in order, KH·KW
	// rows at a time, and each image channel is cleared just before its
	// terms are added, while it is in cache.
	ForEach(g.C*n, g.Rows()*ld, func(k int) {
		c, b := k/n, k%n
		img := dst[(b*g.C+c)*hw : (b*g.C+c+1)*hw]
		clear(img)
		col2imChan(img, src[c*kk*ld+b*p:], ld, g, ys, xs)
	})
}
