package gemm

import (
	"math/rand/v2"

	"github.com/positgan/positgan/quant"
)

// A Rounder rounds slices to one quant.Format with one rounding mode, for
// float32 or float64 data. A nil Format rounds nothing: the Rounder
// copies. Rounding itself is the format's (Format.RoundSlice, which the
// quant package vectorises).
//
// A Rounder with stochastic rounding holds a random source and is not safe
// for concurrent use; otherwise it is.
type Rounder struct {
	f    quant.Format
	mode quant.Rounding
	rng  *rand.PCG
}

// NewRounder returns a Rounder for f and mode. rng is used only by
// stochastic rounding, which panics without one.
func NewRounder(f quant.Format, mode quant.Rounding, rng *rand.PCG) *Rounder {
	return &Rounder{f: f, mode: mode, rng: rng}
}

// Format returns the format rounded to (nil: none).
func (q *Rounder) Format() quant.Format { return q.f }

// IsIdentity reports whether q leaves values unchanged.
func (q *Rounder) IsIdentity() bool { return q == nil || q.f == nil }

// Round sets dst[i] to src[i] rounded; dst may be src. It panics if the
// lengths differ.
func (q *Rounder) Round(dst, src []float32) {
	if len(dst) != len(src) {
		panic("gemm: slice lengths differ")
	}
	if q.IsIdentity() {
		copy(dst, src)
		return
	}
	quant.RoundTo(dst, src, q.f, q.mode, q.rng)
}

// Round64 sets dst[i] to src[i] rounded once to the format (always to
// nearest: float64 data serve gradient checks, which need determinism).
func (q *Rounder) Round64(dst, src []float64) {
	if len(dst) != len(src) {
		panic("gemm: slice lengths differ")
	}
	if q.IsIdentity() {
		copy(dst, src)
		return
	}
	for i, x := range src {
		dst[i] = q.f.Round64(x)
	}
}

// RoundSlice is Round or Round64 by element type.
func RoundSlice[T Float](q *Rounder, dst, src []T) {
	switch d := any(dst).(type) {
	case []float32:
		q.Round(d, any(src).([]float32))
	case []float64:
		q.Round64(d, any(src).([]float64))
	}
}
