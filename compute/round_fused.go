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

// RoundsInParts reports whether RoundSlice by q of a slice in
// consecutive parts, in any order, gives the bits of one call on the
// whole: q rounds nothing, or element by element to nearest.
func RoundsInParts(q *Rounder) bool {
	return q.IsIdentity() || q.f != nil && q.mode == quant.Nearest
}

// PadImagesRound sets dst to the n images of src rounded by q and padded
// as PadImages pads them: the bits of RoundSlice(q, t, src) followed by
// PadImages(dst, t, n, g), by runs of planes rounded into a buffer that
// stays in cache and padded from it. It reports false, and writes
// nothing, if q does not round in parts (stochastic rounding, a block
// format): the caller then rounds into a copy first. A q that rounds
// nothing pads.
func PadImagesRound[T Float](q *Rounder, dst, src []T, n int, g Geom) bool {
	if q.IsIdentity() {
		PadImages(dst, src, n, g)
		return true
	}
	if !RoundsInParts(q) {
		return false
	}
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	if n < 0 || len(src) < n*g.C*g.H*g.W || len(dst) < n*g.C*hp*wp {
		panic("compute: pad: slice too short")
	}
	padRoundRuns(q, dst, nil, src, n, g)
	return true
}

// PadImagesRoundInto sets t to src rounded by q, and dst to the n images
// of t padded as PadImages pads them, by runs of planes, each padded while
// it is still in cache: the bits of RoundSlice(q, t, src) followed by
// PadImages(dst, t, n, g). It reports false, and writes nothing, if q
// does not round in parts (stochastic rounding, a block format).
func PadImagesRoundInto[T Float](q *Rounder, dst, t, src []T, n int, g Geom) bool {
	if !RoundsInParts(q) {
		return false
	}
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	if n < 0 || len(src) < n*g.C*g.H*g.W || len(t) < n*g.C*g.H*g.W || len(dst) < n*g.C*hp*wp {
		panic("compute: pad: slice too short")
	}
	padRoundRuns(q, dst, t, src, n, g)
	return true
}

// padRoundRuns pads the n images of src rounded by q into dst, rounding
// runs of planes into t (nil: buffers of the goroutines' own).
func padRoundRuns[T Float](q *Rounder, dst, t, src []T, n int, g Geom) {
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	j, ok := poolOf[T](&padRounds).Get().(*padRound[T])
	if !ok {
		j = new(padRound[T])
	}
	*j = padRound[T]{q: q, dst: dst, t: t, src: src, g: g}
	ForRanges(n*g.C, max(1<<16/max(hp*wp, 1), 1), j)
	*j = padRound[T]{}
	poolOf[T](&padRounds).Put(j)
}

// A padRound is a PadImagesRound call, for the goroutines that run its
// ranges of planes; calls take them from a pool, as the workers keep a
// pointer to them.
type padRound[T Float] struct {
	q           *Rounder
	dst, t, src []T // t: where the rounded planes go, or nil
	g           Geom
}

// padRounds holds *padRound[T]; roundBufs the *[]T buffers padRound
// rounds runs of planes into.
var padRounds, roundBufs typedPools

// Range rounds planes [lo, hi) of the batch into a buffer of roundRun
// values, as many whole planes at a time as fit (at least one), and pads
// them into dst: the padding is never rounded, so that no more values are
// rounded than before and the zeros stay +0 whatever the format rounds
// them to (rounding the padded planes in place would round 31% more values
// for a 14×14 image padded by one pixel).
func (j *padRound[T]) Range(lo, hi int) {
	g := j.g
	hw, hp, wp := g.H*g.W, g.H+2*g.PH, g.W+2*g.PW
	per := max(roundRun/max(hw, 1), 1)
	var buf []T
	if j.t == nil {
		pool := poolOf[T](&roundBufs)
		bp, ok := pool.Get().(*[]T)
		if !ok {
			bp = new([]T)
		}
		defer pool.Put(bp)
		// At least a run; more for planes larger than a run, kept in the
		// pool for the next call.
		if n := max(per*hw, roundRun); cap(*bp) < n {
			*bp = make([]T, n)
		}
		buf = *bp
	}
	for k := lo; k < hi; k += per {
		m := min(per, hi-k)
		var t []T
		if j.t != nil {
			t = j.t[k*hw : (k+m)*hw]
		} else {
			t = buf[:m*hw]
		}
		RoundSlice(j.q, t, j.src[k*hw:(k+m)*hw])
		gm := g
		gm.C = m
		gemm.PadImages(j.dst[k*hp*wp:(k+m)*hp*wp], t, 1, gm)
	}
}

// MatrixToImagesRound is MatrixToImages followed by RoundSlice(q, dst,
// dst), bit for bit: with the CPU backend and a q that fuses, each image's
// planes are rounded by runs as they are written, after the bias is added.
func MatrixToImagesRound[T Float](q *Rounder, dst, src, bias []T, n, c, p int) {
	if _, cpu := impl.(CPU); !cpu || q.IsIdentity() || !RoundsInParts(q) {
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
	if _, cpu := impl.(CPU); !cpu || q.IsIdentity() || !RoundsInParts(q) {
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
