package compute

import (
	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/quant"
)

// The fused roundings: a layout copy (padding, the product's scatter into
// images, the images' gather into a matrix) that rounds what it moves
// while it is in cache, instead of a second pass over a whole activation
// tensor. Only an element-wise format rounded to nearest fuses: it maps
// each element to a value of its own, so that rounding commutes with the
// copies; stochastic rounding draws its random stream in tensor order and
// keeps the unfused sequence.

// fusesRounding reports whether q rounds element by element to nearest,
// with +0 rounded to +0 (the padding's zeros are rounded too), on float32
// or float64 data of type T.
func fusesRounding[T Float](q *Rounder) bool {
	if q == nil || q.f == nil || q.mode != quant.Nearest {
		return false
	}
	if _, f32 := any(T(0)).(float32); f32 {
		return q.f.Round(0) == 0 && !signbit32(q.f.Round(0))
	}
	z := q.f.Round64(0)
	return z == 0 && !signbit64(z)
}

func signbit32(x float32) bool { return x < 0 || 1/x < 0 }
func signbit64(x float64) bool { return x < 0 || 1/x < 0 }

// RoundsInParts reports whether RoundSlice by q of a slice in
// consecutive parts, in any order, gives the bits of one call on the
// whole: q rounds nothing, or element by element to nearest.
func RoundsInParts(q *Rounder) bool {
	return q.IsIdentity() || q.f != nil && q.mode == quant.Nearest
}

// roundIn rounds parts of an output in place: a Rounder as a
// gemm.Finisher (a pointer conversion, which an interface holds without
// allocating).
type roundIn[T Float] Rounder

func (r *roundIn[T]) Finish(d []T) { RoundSlice((*Rounder)(r), d, d) }

// PadImagesRound sets dst to the n images of src rounded by q and padded
// as PadImages pads them: the bits of RoundSlice(q, t, src) followed by
// PadImages(dst, t, n, g), each plane rounded right after it is padded.
// It reports false, and writes nothing, if q does not round that way
// (stochastic rounding, a block format, a format that rounds +0 to
// something else): the caller then rounds into a copy first. A q that
// rounds nothing pads.
func PadImagesRound[T Float](q *Rounder, dst, src []T, n int, g Geom) bool {
	if q.IsIdentity() {
		PadImages(dst, src, n, g)
		return true
	}
	if !fusesRounding[T](q) {
		return false
	}
	gemm.PadImagesThen(dst, src, n, g, (*roundIn[T])(q))
	return true
}

// MatrixToImagesRound is MatrixToImages followed by RoundSlice(q, dst,
// dst), bit for bit: with the CPU backend and a q that fuses, each image's
// planes are rounded by runs as they are written, after the bias is added.
func MatrixToImagesRound[T Float](q *Rounder, dst, src, bias []T, n, c, p int) {
	if _, cpu := impl.(CPU); !cpu || q.IsIdentity() || !fusesRounding[T](q) {
		MatrixToImages(dst, src, bias, n, c, p)
		RoundSlice(q, dst[:n*c*p], dst[:n*c*p])
		return
	}
	checkTranspose(dst, src, n, c, p)
	if bias != nil && len(bias) < c {
		panic("compute: bias too short")
	}
	j := getTranspose(dst, src, bias, n, c, p)
	j.q = q
	ForEaches(n, n*c*p, (*scatterJob[T])(j))
	j.put()
}

// ImagesToMatrixRound is ImagesToMatrix followed by RoundSlice(q, dst,
// dst), bit for bit: with the CPU backend and a q that fuses, each row
// of the matrix is rounded by runs as it is written.
func ImagesToMatrixRound[T Float](q *Rounder, dst, src []T, n, c, p int) {
	if _, cpu := impl.(CPU); !cpu || q.IsIdentity() || !fusesRounding[T](q) {
		ImagesToMatrix(dst, src, n, c, p)
		RoundSlice(q, dst[:n*c*p], dst[:n*c*p])
		return
	}
	checkTranspose(dst, src, n, c, p)
	j := getTranspose(dst, src, nil, n, c, p)
	j.q = q
	ForEaches(c, n*c*p, (*gatherRoundJob[T])(j))
	j.put()
}

// checkTranspose panics if dst or src holds fewer than n·c·p values.
func checkTranspose[T Float](dst, src []T, n, c, p int) {
	if n < 0 || c < 0 || p < 0 || len(dst) < n*c*p || len(src) < n*c*p {
		panic("compute: slice too short")
	}
}
