package quant

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Posit is the posit(n, es) format of the 2022 posit standard, generalised
// to any es, with an optional exponent bias (see Scale).
//
// A code is an n-bit two's-complement pattern: 0 is zero, 1<<(n-1) is NaR
// (not a real), and the rest are ±useed^k·2^e·1.f with useed = 2^(2^es).
// Rounding is to nearest with ties to even on the bit pattern: the tie point
// between neighbouring codes c and c+1 is the value of the (n+1)-bit posit
// 2c+1, which near minpos and maxpos is not the arithmetic midpoint. A
// nonzero value never rounds to zero or NaR: magnitudes at or below minpos
// give ±minpos, at or above maxpos ±maxpos. ±Inf and NaN encode to NaR.
//
// Posit values are comparable; the zero Posit is not a valid format (use
// NewPosit or Parse).
type Posit struct {
	n, es uint8
	scale int16 // exponent bias: codes hold x·2^scale
}

// Limits of the posit formats this package implements.
const (
	MaxPositBits = 32
	MaxPositES   = 4
	maxScaleBias = 1000
	// maxFloat64Scale bounds |log2| of every posit value with its bias:
	// 2^±1022 are normal float64s.
	maxFloat64Scale = 1022
)

// NewPosit returns posit(n, es) for 2 <= n <= 32 and 0 <= es <= 4.
func NewPosit(n, es int) (Posit, error) {
	if n < 2 || n > MaxPositBits {
		return Posit{}, FormatError(fmt.Sprintf("posit(%d,%d): n must be in [2,%d]", n, es, MaxPositBits))
	}
	if es < 0 || es > MaxPositES {
		return Posit{}, FormatError(fmt.Sprintf("posit(%d,%d): es must be in [0,%d]", n, es, MaxPositES))
	}
	return Posit{n: uint8(n), es: uint8(es)}, nil
}

// N returns the width n.
func (p Posit) N() int { return int(p.n) }

// ES returns the number of exponent bits.
func (p Posit) ES() int { return int(p.es) }

// ScaleExp returns the exponent bias k (see Scale).
func (p Posit) ScaleExp() int { return int(p.scale) }

// Bits returns n.
func (p Posit) Bits() int { return int(p.n) }

func (p Posit) String() string {
	if p.scale != 0 {
		return fmt.Sprintf("posit(%d,%d,scale=%d)", p.n, p.es, p.scale)
	}
	return fmt.Sprintf("posit(%d,%d)", p.n, p.es)
}

func (p Posit) withScale(k int) (Format, error) {
	s := int(p.scale) + k
	// Every value must stay a normal float64, so that Decode is exact:
	// the values of posit(n,es,scale=s) span 2^±MaxScale·2^-s.
	lim := min(maxScaleBias, maxFloat64Scale-p.MaxScale())
	if s < -lim || s > lim {
		return nil, FormatError(fmt.Sprintf("%v: scale %d out of range [-%d,%d] (values must stay normal float64s)", p, s, lim, lim))
	}
	p.scale = int16(s)
	return p, nil
}

// Mask returns the mask of the n code bits.
func (p Posit) Mask() uint32 { return uint32(1)<<p.n - 1 }

// NaR returns the NaR code, 1<<(n-1).
func (p Posit) NaR() uint32 { return uint32(1) << (p.n - 1) }

// MaxCode returns the code of maxpos, 1<<(n-1) - 1.
func (p Posit) MaxCode() uint32 { return uint32(1)<<(p.n-1) - 1 }

// MaxScale returns log2(maxpos) without the exponent bias: (n-2)·2^es.
func (p Posit) MaxScale() int { return (int(p.n) - 2) << p.es }

// MaxPos returns the largest positive value.
func (p Posit) MaxPos() float64 { return p.Decode(p.MaxCode()) }

// MinPos returns the smallest positive value.
func (p Posit) MinPos() float64 { return p.Decode(1) }

// encodeParts returns the code nearest to ±sig·2^(scale-63), where sig has
// its leading one at bit 63 and sticky says whether nonzero bits below sig
// were dropped. scale is the value's binary exponent before the exponent
// bias is applied. It is the one rounding routine every posit path shares.
func (p Posit) encodeParts(neg bool, scale int, sig uint64, sticky bool) uint32 {
	n, es := int(p.n), int(p.es)
	s := scale + int(p.scale)
	maxScale := (n - 2) << es
	maxCode := uint32(1)<<(n-1) - 1
	var code uint32
	switch {
	case s > maxScale:
		code = maxCode
	case s < -maxScale:
		code = 1
	default:
		k := s >> es // floor division
		e := uint64(s - k<<es)
		var reg uint64
		var rlen int
		if k >= 0 {
			rlen = k + 2
			reg = (uint64(1)<<(k+1) - 1) << 1
		} else {
			rlen = -k + 1
			reg = 1
		}
		// Left-align regime | exponent | fraction in one word.
		acc := reg << (64 - rlen)
		if es > 0 {
			acc |= e << (64 - rlen - es)
		}
		frac := sig << 1 // drop the hidden bit
		sh := rlen + es
		acc |= frac >> sh
		if frac<<(64-sh) != 0 {
			sticky = true
		}
		code = uint32(acc >> (65 - n)) // the n-1 bits after the sign
		guard := acc >> (64 - n) & 1
		rest := acc<<n != 0 || sticky
		if guard == 1 && (rest || code&1 == 1) {
			code++
		}
		if code > maxCode {
			code = maxCode
		}
	}
	if neg {
		code = -code & p.Mask()
	}
	return code
}

// decodeParts splits a code that is neither zero nor NaR into sign, binary
// exponent (with the exponent bias removed) and significand with its
// leading one at bit 63.
func (p Posit) decodeParts(c uint32) (neg bool, scale int, sig uint64) {
	n, es := int(p.n), int(p.es)
	c &= p.Mask()
	if c>>(n-1) == 1 {
		neg = true
		c = -c & p.Mask()
	}
	x := uint64(c) << (65 - n) // the n-1 body bits, left-aligned
	var k, run int
	if x>>63 == 1 {
		run = bits.LeadingZeros64(^x)
		k = run - 1
	} else {
		run = bits.LeadingZeros64(x)
		k = -run
	}
	x <<= run + 1 // regime and its terminator
	e := 0
	if es > 0 {
		e = int(x >> (64 - es))
		x <<= es
	}
	return neg, k<<es + e - int(p.scale), 1<<63 | x>>1
}

// Encode returns the posit code nearest to x.
func (p Posit) Encode(x float32) uint32 {
	b := math.Float32bits(x)
	neg := b>>31 == 1
	ex := int(b >> 23 & 0xff)
	m := uint64(b & 0x7fffff)
	switch {
	case ex == 0xff:
		return p.NaR()
	case ex == 0:
		if m == 0 {
			return 0
		}
		lz := bits.LeadingZeros64(m)
		return p.encodeParts(neg, 63-lz-149, m<<lz, false)
	}
	return p.encodeParts(neg, ex-127, 1<<63|m<<40, false)
}

// Encode64 returns the posit code nearest to the float64 x.
func (p Posit) Encode64(x float64) uint32 {
	b := math.Float64bits(x)
	neg := b>>63 == 1
	ex := int(b >> 52 & 0x7ff)
	m := b & (1<<52 - 1)
	switch {
	case ex == 0x7ff:
		return p.NaR()
	case ex == 0:
		if m == 0 {
			return 0
		}
		lz := bits.LeadingZeros64(m)
		return p.encodeParts(neg, 63-lz-1074, m<<lz, false)
	}
	return p.encodeParts(neg, ex-1023, 1<<63|m<<11, false)
}

// Decode returns the exact value of code c; NaR decodes to NaN.
func (p Posit) Decode(c uint32) float64 {
	c &= p.Mask()
	switch c {
	case 0:
		return 0
	case p.NaR():
		return math.NaN()
	}
	neg, scale, sig := p.decodeParts(c)
	v := math.Ldexp(float64(sig), scale-63) // sig has at most 32 significant bits: exact
	if neg {
		v = -v
	}
	return v
}

// Round returns x rounded to the nearest posit. A value beyond float32's
// range (possible only for es >= 3) saturates to ±MaxFloat32 or to the
// smallest float32 subnormal of the right sign, so that, as in the posit
// itself, a nonzero finite value never becomes zero or infinite.
func (p Posit) Round(x float32) float32 {
	if r, ok := p.kernel().round(x); ok {
		return r
	}
	return p.roundSlow(x)
}

// roundSlow is Round by the definition: encode, then decode. The kernels
// fall back to it wherever their bit tricks do not apply.
func (p Posit) roundSlow(x float32) float32 {
	return toFloat32Sat(p.Decode(p.Encode(x)))
}

// RoundSlice sets dst[i] = Round(src[i]). dst may be src. It runs
// bit-manipulation kernels (AVX-512 or AVX2 where the CPU has them) that
// are exact on every input; see posit_kernel.go.
func (p Posit) RoundSlice(dst, src []float32) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	roundPositSlice(dst, src, p)
}

// RoundSliceStochastic rounds each src[i] to one of the two posits that
// bracket it, the upper one with probability (x-lo)/(hi-lo), so that the
// expected result is src[i]. Values beyond maxpos give maxpos and values
// below minpos give minpos, as in Round: a nonzero value never becomes
// zero or NaR. Each element takes 32 random bits, the low then the high
// half of one rng.Uint64 per pair of elements, so a seed fixes the result.
func (p Posit) RoundSliceStochastic(dst, src []float32, rng *rand.PCG) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	roundPositStochSlice(dst, src, p, rng)
}

// Round64 returns x rounded to the nearest posit.
func (p Posit) Round64(x float64) float64 { return p.Decode(p.Encode64(x)) }

// toFloat32Sat converts an exactly representable-or-out-of-range value to
// float32 without letting a nonzero finite value become 0 or ±Inf.
func toFloat32Sat(v float64) float32 {
	f := float32(v)
	switch {
	case math.IsInf(float64(f), 0) && !math.IsInf(v, 0):
		return float32(math.Copysign(math.MaxFloat32, v))
	case f == 0 && v != 0:
		return float32(math.Copysign(math.SmallestNonzeroFloat32, v))
	}
	return f
}
