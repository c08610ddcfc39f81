package quant

import (
	"fmt"
	"math"
)

// Fixed is the two's-complement fixed-point format fixed(wl, fl): a code is
// a wl-bit two's-complement integer c and has the value c·2^-fl.
//
// fl counts fraction bits and may be negative (steps of 2^-fl > 1) or
// larger than wl (every value below 1 in magnitude). Rounding is to
// nearest, ties to even; magnitudes beyond the range saturate to the most
// negative or most positive code, ±Inf included. There is no NaN code and
// no -0: NaN and -0 round to +0. Round returns the value as a float32,
// which holds it exactly unless it needs more than 24 significant bits
// (possible only for wl > 24, e.g. the largest code of fixed(32,0)); then
// the float32 is the nearest one.
//
// Fixed values are comparable; the zero Fixed is not a valid format (use
// NewFixed or Parse).
type Fixed struct {
	wl uint8
	fl int16
}

// Limits of the fixed-point formats this package implements.
const (
	MaxFixedBits = 32
	// maxFixedFrac bounds |fl| so that every value is exact in float64.
	maxFixedFrac = 512
)

// NewFixed returns fixed(wl, fl) for 2 <= wl <= 32 and -512 <= fl <= 512.
func NewFixed(wl, fl int) (Fixed, error) {
	if wl < 2 || wl > MaxFixedBits {
		return Fixed{}, FormatError(fmt.Sprintf("fixed(%d,%d): word length must be in [2,%d]", wl, fl, MaxFixedBits))
	}
	if fl < -maxFixedFrac || fl > maxFixedFrac {
		return Fixed{}, FormatError(fmt.Sprintf("fixed(%d,%d): fraction bits must be in [-%d,%d]", wl, fl, maxFixedFrac, maxFixedFrac))
	}
	return Fixed{wl: uint8(wl), fl: int16(fl)}, nil
}

func parseFixed(args []string) (Format, error) {
	if len(args) != 2 {
		return nil, FormatError("fixed takes (wl,fl): word length and fraction bits")
	}
	wl, err := intArg("fixed word length", args[0])
	if err != nil {
		return nil, err
	}
	fl, err := intArg("fixed fraction bits", args[1])
	if err != nil {
		return nil, err
	}
	return NewFixed(wl, fl)
}

func (x Fixed) String() string { return fmt.Sprintf("fixed(%d,%d)", x.wl, x.fl) }

// withScale returns fixed(wl, fl+k), whose values are x's times 2^-k.
func (x Fixed) withScale(k int) (Format, error) {
	return NewFixed(int(x.wl), int(x.fl)+k)
}

// WL returns the word length.
func (x Fixed) WL() int { return int(x.wl) }

// FL returns the number of fraction bits.
func (x Fixed) FL() int { return int(x.fl) }

// Bits returns the word length.
func (x Fixed) Bits() int { return int(x.wl) }

// Mask returns the mask of the code bits.
func (x Fixed) Mask() uint32 { return uint32(1<<x.wl - 1) }

// Max returns the largest value, (2^(wl-1)-1)·2^-fl.
func (x Fixed) Max() float64 { return math.Ldexp(float64(x.maxInt()), -int(x.fl)) }

// Min returns the most negative value, -2^(wl-1)·2^-fl.
func (x Fixed) Min() float64 { return math.Ldexp(float64(x.minInt()), -int(x.fl)) }

func (x Fixed) maxInt() float64 { return float64(int64(1)<<(x.wl-1) - 1) }
func (x Fixed) minInt() float64 { return -float64(int64(1) << (x.wl - 1)) }

// Decode returns the value of code c.
func (x Fixed) Decode(c uint32) float64 {
	sh := 32 - x.wl
	return math.Ldexp(float64(int32(c<<sh)>>sh), -int(x.fl))
}

// Encode returns the code nearest to x.
func (x Fixed) Encode(v float32) uint32 { return x.Encode64(float64(v)) }

// Encode64 returns the code nearest to v.
func (x Fixed) Encode64(v float64) uint32 {
	return uint32(int32(x.roundInt(v))) & x.Mask()
}

// roundInt returns the code of v as an integer.
func (x Fixed) roundInt(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	k := math.RoundToEven(v * math.Ldexp(1, int(x.fl)))
	return min(max(k, x.minInt()), x.maxInt())
}

// Round returns v rounded to x.
func (x Fixed) Round(v float32) float32 { return float32(x.Round64(float64(v))) }

// Round64 returns v rounded to x.
func (x Fixed) Round64(v float64) float64 {
	k := x.roundInt(v)
	if k == 0 {
		return 0
	}
	return math.Ldexp(k, -int(x.fl))
}
