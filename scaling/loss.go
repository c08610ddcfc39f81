package scaling

import (
	"fmt"
	"math"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// LossScaler multiplies the loss by Scale before the backward pass so that
// errors sit where the error format is accurate, and divides the weight
// gradients by it before the update.
//
// A static scaler (Dynamic false) never changes Scale. A dynamic one works
// as mixed-precision training does: on a step whose gradients overflowed —
// non-finite values, or, for saturating formats such as posits that never
// overflow to Inf, more than MaxSaturated of them pinned at the format's
// largest magnitude — it multiplies Scale by Backoff and the step is
// skipped; after Interval good steps in a row it multiplies Scale by Growth.
//
// The zero LossScaler is not useful; use NewLossScaler.
type LossScaler struct {
	Scale        float64
	Dynamic      bool
	Growth       float64 // > 1
	Backoff      float64 // in (0,1)
	Interval     int     // good steps before growing
	MaxSaturated float64 // fraction of saturated gradient values that counts as overflow
	MinScale     float64
	MaxScale     float64

	good int // good steps since the last change
}

// NewLossScaler returns a scaler starting at scale; dynamic selects dynamic
// scaling with the usual settings (growth 2 every 1000 good steps, backoff
// 0.5, overflow when over 0.1% of values saturate, scale in [2^-24, 2^24]).
func NewLossScaler(scale float64, dynamic bool) (*LossScaler, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("scaling: loss scale %v must be positive and finite", scale)
	}
	return &LossScaler{
		Scale: scale, Dynamic: dynamic,
		Growth: 2, Backoff: 0.5, Interval: 1000, MaxSaturated: 1e-3,
		MinScale: 0x1p-24, MaxScale: 0x1p24,
	}, nil
}

// GradStats summarises one step's gradients for the scaler.
type GradStats struct {
	Total     int // values inspected
	NonFinite int // ±Inf or NaN
	Saturated int // |g| at or above the error format's largest finite magnitude
}

// Overflowed reports whether the step's gradients overflowed, given the
// allowed fraction of saturated values.
func (s GradStats) Overflowed(maxSaturated float64) bool {
	return s.NonFinite > 0 || (s.Total > 0 && float64(s.Saturated) > maxSaturated*float64(s.Total))
}

// Add accumulates the statistics of another tensor.
func (s *GradStats) Add(t GradStats) {
	s.Total += t.Total
	s.NonFinite += t.NonFinite
	s.Saturated += t.Saturated
}

// Inspect counts the non-finite and saturated values of grad, which was
// rounded to f (f nil: only non-finite values count).
func Inspect(grad []float32, f quant.Format) GradStats {
	limit := math.Inf(1)
	if f != nil {
		limit = MaxFinite(f)
	}
	return InspectLimit(grad, limit)
}

// InspectLimit is Inspect for a format whose largest finite magnitude is
// limit (MaxFinite; +Inf for none): a trainer finds the limit once per
// format instead of once per tensor, which for 16-bit formats means
// decoding 65536 codes.
//
// A value saturates when its magnitude is at least float32(limit), as
// float32 compares them; compute.CountLimit counts both kinds in one
// branch-free pass.
func InspectLimit(grad []float32, limit float64) GradStats {
	nonFinite, saturated := compute.CountLimit(grad, float32(limit))
	return GradStats{Total: len(grad), NonFinite: nonFinite, Saturated: saturated}
}

// MaxFinite returns the largest finite magnitude of f: for formats of at
// most 16 bits, found among its codes; for wider ones, f's rounding of the
// largest float32 (which for formats that overflow to Inf returns +Inf,
// meaning nothing saturates short of overflow).
func MaxFinite(f quant.Format) float64 {
	if f.Bits() <= 16 {
		m := 0.0
		for c := uint32(0); c < 1<<f.Bits(); c++ {
			if v := math.Abs(f.Decode(c)); v > m && !math.IsInf(v, 0) {
				m = v
			}
		}
		return m
	}
	return math.Abs(f.Round64(math.MaxFloat32))
}

// Update records one step and reports whether its update should be
// applied (false: the gradients overflowed and the step must be skipped).
// A static scaler still reports overflow, but never changes Scale.
func (l *LossScaler) Update(st GradStats) (apply bool) {
	if st.Overflowed(l.MaxSaturated) {
		l.good = 0
		if l.Dynamic {
			l.Scale = math.Max(l.MinScale, l.Scale*l.Backoff)
		}
		return false
	}
	if l.Dynamic {
		l.good++
		if l.good >= l.Interval {
			l.good = 0
			l.Scale = math.Min(l.MaxScale, l.Scale*l.Growth)
		}
	}
	return true
}

// GoodSteps returns the number of good steps since Scale last changed; it
// is part of the scaler's state for checkpoints.
func (l *LossScaler) GoodSteps() int { return l.good }

// SetGoodSteps restores the count saved from GoodSteps.
func (l *LossScaler) SetGoodSteps(n int) { l.good = n }
