package quant

import (
	"fmt"
	"math/rand/v2"
)

// Format is a number format that float32 values can be rounded to.
//
// Implementations are small comparable values: two Formats that denote the
// same format compare equal with ==. All methods are safe for concurrent use.
type Format interface {
	// String returns the canonical name; Parse(f.String()) == f.
	String() string
	// Bits returns the width of a code in bits.
	Bits() int
	// Encode returns the code nearest to x (ties to even). Codes occupy the
	// low Bits() bits.
	Encode(x float32) uint32
	// Decode returns the exact value of code c (NaN for NaR and NaN codes,
	// ±Inf for infinities). Only the low Bits() bits of c are used.
	Decode(c uint32) float64
	// Round returns x rounded to the nearest value of the format (ties to
	// even), as a float32. Round(x) == float32(Decode(Encode(x))) whenever
	// the decoded value is a float32.
	Round(x float32) float32
	// Round64 is Round for a float64 input, rounded once (no detour
	// through float32).
	Round64(x float64) float64
	// RoundSlice sets dst[i] = Round(src[i]). dst and src must have equal
	// lengths; dst may be src.
	RoundSlice(dst, src []float32)
	// RoundSliceStochastic rounds each src[i] to one of the two values of
	// the format that bracket it, choosing the farther one with probability
	// proportional to the distance from it, so that the expected result is
	// src[i] (outside saturation). Random bits come from rng.
	RoundSliceStochastic(dst, src []float32, rng *rand.PCG)
}

// Rounding selects how a value between two representable values is resolved.
type Rounding uint8

const (
	// Nearest rounds to the nearest value, ties to even. It is the default.
	Nearest Rounding = iota
	// Stochastic rounds up or down with probability proportional to
	// proximity, using a seeded generator for reproducibility.
	Stochastic
)

func (r Rounding) String() string {
	switch r {
	case Nearest:
		return "nearest"
	case Stochastic:
		return "stochastic"
	}
	return fmt.Sprintf("Rounding(%d)", uint8(r))
}

// ParseRounding parses "nearest" or "stochastic".
func ParseRounding(s string) (Rounding, error) {
	switch s {
	case "nearest", "", "rne":
		return Nearest, nil
	case "stochastic", "sr":
		return Stochastic, nil
	}
	return 0, FormatError("unknown rounding " + s + " (want nearest or stochastic)")
}

// RoundTo rounds src to f with rounding r and writes the result to dst,
// which it returns. dst may be src. rng is used only by Stochastic rounding.
// It panics if the lengths differ or if r is Stochastic and rng is nil.
func RoundTo(dst, src []float32, f Format, r Rounding, rng *rand.PCG) []float32 {
	if len(dst) != len(src) {
		panic(errLength)
	}
	switch r {
	case Nearest:
		f.RoundSlice(dst, src)
	case Stochastic:
		if rng == nil {
			panic("quant: stochastic rounding needs a random source")
		}
		f.RoundSliceStochastic(dst, src, rng)
	default:
		panic("quant: unknown rounding " + r.String())
	}
	return dst
}

// Scaled is implemented by formats that take an exponent bias.
type scaler interface {
	withScale(k int) (Format, error)
}

// Scale returns the format that rounds x as f rounds x·2^k, divided by 2^k:
// its values are f's values times 2^-k. Scales add up: Scale(Scale(f, a), b)
// is Scale(f, a+b). Scale(f, 0) is f.
func Scale(f Format, k int) (Format, error) {
	s, ok := f.(scaler)
	if !ok {
		return nil, fmt.Errorf("quant: %v takes no exponent bias", f)
	}
	return s.withScale(k)
}

// FormatError reports a format name or parameter set that names no format.
type FormatError string

func (e FormatError) Error() string { return "quant: bad format: " + string(e) }

const errLength = "quant: slice lengths differ"
