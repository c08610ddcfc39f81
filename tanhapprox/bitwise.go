package tanhapprox

import (
	"fmt"
	"math"

	"github.com/positgan/positgan/quant"
)

// The published tail correction of the bitwise tanh.
const (
	DefaultTheta = 0.7583  // threshold on |R| above which the correction applies
	DefaultDelta = 0.06795 // amount added to |R|, capped at 1
)

// Bitwise is the bitwise posit sigmoid, or the tanh built from it
// (optionally corrected), for one posit(n,0) format.
//
// The zero Bitwise is not valid; use NewBitwise or NewCorrectedTanh.
// Bitwise values are comparable and safe for concurrent use.
type Bitwise struct {
	fn           Func
	p            quant.Posit
	corrected    bool
	rounded      bool // δ rounded to the format: At gives the code path's values
	theta, delta float64
}

// NewBitwise returns the bitwise sigmoid (fn == Sigmoid) or the plain
// bitwise tanh (fn == Tanh) for p. The format must be posit(n,0) with
// n >= 3 and no exponent bias: the rule relies on es = 0, where the codes
// of [0,1) are a uniform grid.
func NewBitwise(fn Func, p quant.Posit) (Bitwise, error) {
	if fn != Tanh && fn != Sigmoid {
		return Bitwise{}, fmt.Errorf("tanhapprox: unknown function %v", fn)
	}
	if p.N() < 3 || p.ES() != 0 || p.ScaleExp() != 0 {
		return Bitwise{}, fmt.Errorf("tanhapprox: bitwise %v needs posit(n,0) with n >= 3 and no exponent bias, not %v", fn, p)
	}
	return Bitwise{fn: fn, p: p}, nil
}

// NewCorrectedTanh returns the bitwise tanh with the tail correction: a
// result R > theta becomes min(R+delta, 1), R < -theta becomes
// max(R-delta, -1). DefaultTheta and DefaultDelta are the published values.
// It needs 0 <= theta < 1 and 0 <= delta <= 1.
func NewCorrectedTanh(p quant.Posit, theta, delta float64) (Bitwise, error) {
	b, err := NewBitwise(Tanh, p)
	if err != nil {
		return Bitwise{}, err
	}
	if !(theta >= 0 && theta < 1) {
		return Bitwise{}, fmt.Errorf("tanhapprox: correction threshold theta = %g is not in [0,1)", theta)
	}
	if !(delta >= 0 && delta <= 1) {
		return Bitwise{}, fmt.Errorf("tanhapprox: correction delta = %g is not in [0,1]", delta)
	}
	b.corrected, b.theta, b.delta = true, theta, delta
	return b, nil
}

// Func returns the function approximated.
func (b Bitwise) Func() Func { return b.fn }

// Format returns the posit format.
func (b Bitwise) Format() quant.Posit { return b.p }

// Correction returns the tail correction's parameters, and whether there
// is one.
func (b Bitwise) Correction() (theta, delta float64, ok bool) {
	return b.theta, b.delta, b.corrected
}

// RoundedOutput returns a copy of b whose At and Apply return exactly
// the decoded Code of the rounded input: what posit hardware outputs. Only
// the corrected tanh changes, and only by rounding δ to the format (R and
// R±δ are then on the format's grid of [-1,1]); the sigmoid and the plain
// tanh already return format values.
func (b Bitwise) RoundedOutput() Bitwise {
	b.rounded = true
	return b
}

func (b Bitwise) String() string {
	r := ""
	if b.rounded {
		r = ",rounded"
	}
	if b.corrected {
		return fmt.Sprintf("bitwise-corrected-tanh(%v,theta=%g,delta=%g%s)", b.p, b.theta, b.delta, r)
	}
	return fmt.Sprintf("bitwise-%v(%v%s)", b.fn, b.p, r)
}

// effDelta returns the δ At and Apply use.
func (b Bitwise) effDelta() float64 {
	if b.rounded {
		return b.p.Round64(b.delta)
	}
	return b.delta
}

// SigmoidCode returns the code (c XOR 1<<(n-1)) >> 2 of the n-bit code c:
// the bitwise sigmoid. NaR gives NaR (the bare rule would give 0).
func (b Bitwise) SigmoidCode(c uint32) uint32 {
	c &= b.p.Mask()
	nar := b.p.NaR()
	if c == nar {
		return nar
	}
	return (c ^ nar) >> 2
}

// TanhCode returns the code of the bitwise tanh of code c as posit(n,0)
// hardware computes it: t = 2x rounded to the format, s = SigmoidCode(t),
// R = 2s-1 (exact), and, if corrected, R±δ with δ rounded to the format
// (exact again: both lie on the grid of [-1,1]). NaR gives NaR.
func (b Bitwise) TanhCode(c uint32) uint32 {
	c &= b.p.Mask()
	if c == b.p.NaR() {
		return c
	}
	return b.p.Encode64(b.finish(b.tanhR(c), b.p.Round64(b.delta)))
}

// Code applies the bitwise function to code c: SigmoidCode or TanhCode.
func (b Bitwise) Code(c uint32) uint32 {
	if b.fn == Sigmoid {
		return b.SigmoidCode(c)
	}
	return b.TanhCode(c)
}

// At rounds x to the format and returns the bitwise function of it. For
// tanh the result R = 2s-1 is exact and the correction uses the exact δ
// (unless RoundedOutput), so At(x) may differ from the value of TanhCode
// by the rounding of δ: at most half an ulp of the format's [0,1) grid.
// NaN and ±Inf give NaN.
func (b Bitwise) At(x float64) float64 {
	c := b.p.Encode64(x)
	if c == b.p.NaR() {
		return math.NaN()
	}
	if b.fn == Sigmoid {
		return math.Ldexp(float64(b.SigmoidCode(c)), 2-b.p.N())
	}
	return b.finish(b.tanhR(c), b.effDelta())
}

// tanhR returns R = 2·sigmoid(2x) - 1 for the code c of x (not NaR).
func (b Bitwise) tanhR(c uint32) float64 {
	t := b.p.Encode64(2 * b.p.Decode(c))
	// s = SigmoidCode(t)·2^-(n-2), so 2s-1 = SigmoidCode(t)·2^-(n-3) - 1.
	return math.Ldexp(float64(b.SigmoidCode(t)), 3-b.p.N()) - 1
}

// finish applies the tail correction, if any, with the given δ.
func (b Bitwise) finish(r, delta float64) float64 {
	if !b.corrected {
		return r
	}
	return correct(r, b.theta, delta)
}

func correct(r, theta, delta float64) float64 {
	switch {
	case r > theta:
		return math.Min(r+delta, 1)
	case r < -theta:
		return math.Max(r-delta, -1)
	}
	return r
}

// Apply sets dst[i] = float32(At(src[i])) and returns dst. dst may be
// src. Up to 16 bits it runs a bit-level kernel; wider formats go
// through quant.
func (b Bitwise) Apply(dst, src []float32) []float32 {
	if len(dst) != len(src) {
		panic(errLength)
	}
	n := uint(b.p.N())
	switch {
	case n > fastMaxBits:
		for i, x := range src {
			dst[i] = float32(b.At(float64(x)))
		}
	case b.fn == Sigmoid:
		sigmoidKernel(dst, src, n)
	default:
		tanhKernel(dst, src, n, b.corrected, b.theta, b.effDelta())
	}
	return dst
}
