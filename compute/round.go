package compute

import (
	"math/rand/v2"

	"github.com/positgan/positgan/quant"
)

// A Rounder rounds slices to one quant.Format, or matrices to one
// quant.BlockFormat, with one rounding mode, for float32 or float64 data.
// A Rounder with neither rounds nothing: it copies. Rounding itself is the
// Backend's (Round, RoundBlock; on the CPU, the format's Format.RoundSlice,
// which the quant package vectorises, and BlockFormat.RoundMatrix).
//
// A Rounder with stochastic rounding holds a random source and is not safe
// for concurrent use; otherwise it is.
type Rounder struct {
	f    quant.Format
	b    quant.BlockFormat
	mode quant.Rounding
	rng  *rand.PCG
}

// NewRounder returns a Rounder for f and mode. rng is used only by
// stochastic rounding, which panics without one.
func NewRounder(f quant.Format, mode quant.Rounding, rng *rand.PCG) *Rounder {
	return &Rounder{f: f, mode: mode, rng: rng}
}

// NewBlockRounder returns a Rounder for the block format b and mode: its
// RoundMatrix rounds blocks along one axis of a matrix (packed operands
// are rounded along their reduction dimension). rng is used only by
// stochastic rounding.
func NewBlockRounder(b quant.BlockFormat, mode quant.Rounding, rng *rand.PCG) *Rounder {
	return &Rounder{b: b, mode: mode, rng: rng}
}

// Format returns the format rounded to (nil: none, or a block format).
func (q *Rounder) Format() quant.Format { return q.f }

// Block returns the block format rounded to (the zero BlockFormat: none).
func (q *Rounder) Block() quant.BlockFormat { return q.b }

// IsIdentity reports whether q leaves values unchanged.
func (q *Rounder) IsIdentity() bool { return q == nil || q.f == nil && q.b.IsZero() }

// Round sets dst[i] to src[i] rounded; dst may be src. It panics if the
// lengths differ, or if q has a block format (which needs a matrix shape:
// RoundMatrix).
func (q *Rounder) Round(dst, src []float32) {
	if len(dst) != len(src) {
		panic("compute: slice lengths differ")
	}
	if q.IsIdentity() {
		copy(dst, src)
		return
	}
	q.mustBeElementwise()
	impl.Round(dst, src, q.f, q.mode, q.rng)
}

// Round64 sets dst[i] to src[i] rounded once to the format (always to
// nearest: float64 data serve gradient checks, which need determinism).
func (q *Rounder) Round64(dst, src []float64) {
	if len(dst) != len(src) {
		panic("compute: slice lengths differ")
	}
	if q.IsIdentity() {
		copy(dst, src)
		return
	}
	q.mustBeElementwise()
	impl.Round64(dst, src, q.f)
}

func (q *Rounder) mustBeElementwise() {
	if q.f == nil {
		panic("compute: a block format rounds matrices (RoundMatrix), not slices")
	}
}

// RoundMatrix sets dst to the rows×cols row-major matrix src rounded by q;
// dst may be src. A block format's blocks run along axis (for an operand
// of a matrix product, its reduction dimension: along the rows of the left
// operand, down the columns of the right one); an element-wise format
// ignores the shape. float64 data are rounded to nearest. It panics if
// len(src) != rows·cols or the lengths differ.
func RoundMatrix[T Float](q *Rounder, dst, src []T, rows, cols int, axis quant.Axis) {
	if len(dst) != len(src) || rows*cols != len(src) {
		panic("compute: matrix shape does not match the slice lengths")
	}
	if q == nil || q.b.IsZero() {
		RoundSlice(q, dst, src)
		return
	}
	switch d := any(dst).(type) {
	case []float32:
		impl.RoundBlock(d, any(src).([]float32), q.b, rows, cols, axis, q.mode, q.rng)
	case []float64:
		impl.RoundBlock64(d, any(src).([]float64), q.b, rows, cols, axis)
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

// Round sets dst to src rounded to the element-wise format f with mode
// (nil f: copied), as a Rounder for f would; rng is used only by
// stochastic rounding, which panics without one. It panics if the lengths
// differ.
func Round(dst, src []float32, f quant.Format, mode quant.Rounding, rng *rand.PCG) {
	if len(dst) != len(src) {
		panic("compute: slice lengths differ")
	}
	if f == nil {
		copy(dst, src)
		return
	}
	impl.Round(dst, src, f, mode, rng)
}
