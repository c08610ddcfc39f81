package compute

import "github.com/positgan/positgan/internal/gemm"

// Geom is the geometry of a 2-D convolution over one C×H×W image: a KH×KW
// kernel moved with strides SH, SW over the image padded by PH rows and PW
// columns of zeros on each side, giving an OH×OW grid of output positions.
// Rows and Cols give the shape of its column matrix.
type Geom = gemm.Geom

// ConvGeom returns the geometry of a convolution of a C×H×W image with a
// kh×kw kernel, stride s and padding p, with OH and OW computed as
// (H + 2p - kh)/s + 1. It returns an error if the output would be empty.
func ConvGeom(c, h, w, kh, kw, s, p int) (Geom, error) { return gemm.ConvGeom(c, h, w, kh, kw, s, p) }

// Im2col writes the column matrix of the image src (C×H×W, row-major) into
// dst: row (c·KH+i)·KW+j, column oy·OW+ox holds src[c][oy·SH-PH+i][ox·SW-PW+j],
// or zero in the padding. Rows are ld apart, so that the columns of several
// images can sit side by side in one matrix.
func Im2col[T Float](dst []T, ld int, src []T, g Geom) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Im2col(d, ld, any(src).([]float32), g)
	case []float64:
		impl.Im2col64(d, ld, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// Col2im adds the column matrix src (rows ld apart) back into the image dst,
// the adjoint of Im2col: every entry is added to the pixel it was copied
// from; entries that came from the padding are dropped.
func Col2im[T Float](dst, src []T, ld int, g Geom) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Col2im(d, any(src).([]float32), ld, g)
	case []float64:
		impl.Col2im64(d, any(src).([]float64), ld, g)
	default:
		panic(errType)
	}
}

// Im2colBatch writes the column matrices of the n images of src
// (n×C×H×W) side by side into dst, a Rows() × n·Cols() matrix: image b's
// in columns [b·Cols(), (b+1)·Cols()). It is Im2col of every image with
// ld = n·Cols().
func Im2colBatch[T Float](dst, src []T, n int, g Geom) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Im2colBatch(d, any(src).([]float32), n, g)
	case []float64:
		impl.Im2colBatch64(d, any(src).([]float64), n, g)
	default:
		panic(errType)
	}
}

// Col2imBatch sets the n images of dst (n×C×H×W) to the adjoint of
// Im2colBatch applied to src (Rows() × n·Cols()): each pixel is zero plus
// its terms, in the order Col2im adds them, bit for bit clear(dst)
// followed by Col2im of every image.
func Col2imBatch[T Float](dst, src []T, n int, g Geom) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Col2imBatch(d, any(src).([]float32), n, g)
	case []float64:
		impl.Col2imBatch64(d, any(src).([]float64), n, g)
	default:
		panic(errType)
	}
}

// Padded returns the geometry of g's images with their padding made part
// of them (PadImages): H+2·PH by W+2·PW pixels and no padding, with the
// same column matrix as g.
func Padded(g Geom) Geom { return gemm.Padded(g) }

// PadImages sets dst to the n images of src (n×C×H×W) with g's padding of
// zeros around each channel, the n images of Padded(g); without padding it
// copies src.
func PadImages[T Float](dst, src []T, n int, g Geom) { gemm.PadImages(dst, src, n, g) }
