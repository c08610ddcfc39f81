package quant

import (
	"math"
	"math/bits"
)

// Posit arithmetic on codes. Every operation computes the exact result and
// rounds it once, as encodeParts does: to nearest, ties to even on the bit
// pattern, saturating at ±maxpos and ±minpos. Operands and results are codes
// in the low n bits; higher bits of an operand are ignored. The exponent
// bias is respected: Decode(p.Mul(a, b)) is Decode(a)·Decode(b) rounded.

// Neg returns the code of -a. Negation is exact; NaR and 0 are their own
// negations.
func (p Posit) Neg(a uint32) uint32 { return -a & p.Mask() }

// Add returns a+b rounded to p. NaR in gives NaR; x + -x gives 0.
func (p Posit) Add(a, b uint32) uint32 {
	m, nar := p.Mask(), p.NaR()
	a, b = a&m, b&m
	switch {
	case a == nar || b == nar:
		return nar
	case a == 0:
		return b
	case b == 0:
		return a
	}
	na, sa, ga := p.decodeParts(a)
	nb, sb, gb := p.decodeParts(b)
	return p.addParts(na, sa, ga, nb, sb, gb)
}

// Sub returns a-b rounded to p.
func (p Posit) Sub(a, b uint32) uint32 { return p.Add(a, p.Neg(b)) }

// addParts adds ±ga·2^(sa-63) and ±gb·2^(sb-63) (leading ones at bit 63,
// at most 53 significant bits each: posit codes have at most 32, Add64's
// float64 operands 53) and rounds the sum once.
func (p Posit) addParts(na bool, sa int, ga uint64, nb bool, sb int, gb uint64) uint32 {
	if sb > sa || sb == sa && gb > ga {
		na, sa, ga, nb, sb, gb = nb, sb, gb, na, sa, ga
	}
	// x = ga>>1 in the high word: bit 126 of the 128-bit pair has weight
	// 2^sa, and bit 127 is room for the carry.
	xh := ga >> 1
	y := gb >> 1
	var yh, yl uint64
	switch d := uint(sa - sb); {
	case d < 64:
		yh, yl = y>>d, y<<(64-d) // exact
	case d < 128:
		yl = y >> (d - 64)
		if y<<(128-d) != 0 {
			yl |= 1
		}
	default:
		yl = 1
	}
	// Jamming a dropped tail into bit 0 keeps the rounding exact: the tail
	// is dropped only when d > 74 (d > 95 for posit operands), so y's bits
	// sit below bit 52 of the low word, at least 10 places under the
	// bits roundWide keeps (the sum's leading one is at bit 125 or above),
	// and the low word stays nonzero whatever the carry or borrow: the
	// jammed y and the exact y differ by less than one unit of bit 0,
	// which changes only bit 0 of the result and whether it is inexact.
	var hi, lo uint64
	if na == nb {
		var c uint64
		lo, c = bits.Add64(0, yl, 0)
		hi = xh + yh + c
	} else {
		var bo uint64
		lo, bo = bits.Sub64(0, yl, 0)
		hi = xh - yh - bo
	}
	return p.roundWide(na, sa-126, hi, lo, false)
}

// roundWide rounds ±(hi:lo + t)·2^exp to p, where hi:lo is a 128-bit
// integer and t, a fraction in [0, 1), is nonzero if sticky. hi:lo must be
// nonzero if sticky is set.
func (p Posit) roundWide(neg bool, exp int, hi, lo uint64, sticky bool) uint32 {
	var sig uint64
	var top int // index of the leading one
	switch {
	case hi != 0:
		lz := uint(bits.LeadingZeros64(hi))
		top = 127 - int(lz)
		sig = hi<<lz | lo>>(64-lz)
		sticky = sticky || lo<<lz != 0
	case lo != 0:
		lz := uint(bits.LeadingZeros64(lo))
		top = 63 - int(lz)
		sig = lo << lz
	default:
		return 0
	}
	return p.encodeParts(neg, exp+top, sig, sticky)
}

// Mul returns a·b rounded to p. NaR in gives NaR.
func (p Posit) Mul(a, b uint32) uint32 {
	m, nar := p.Mask(), p.NaR()
	a, b = a&m, b&m
	switch {
	case a == nar || b == nar:
		return nar
	case a == 0 || b == 0:
		return 0
	}
	na, sa, ga := p.decodeParts(a)
	nb, sb, gb := p.decodeParts(b)
	return p.mulParts(na, sa, ga, nb, sb, gb)
}

// mulParts multiplies ±ga·2^(sa-63) by ±gb·2^(sb-63) (leading ones at bit
// 63) and rounds the product once.
func (p Posit) mulParts(na bool, sa int, ga uint64, nb bool, sb int, gb uint64) uint32 {
	hi, lo := bits.Mul64(ga, gb) // in [2^126, 2^128)
	s := sa + sb
	if hi>>63 == 0 {
		hi, lo = hi<<1|lo>>63, lo<<1
	} else {
		s++
	}
	return p.encodeParts(na != nb, s, hi, lo != 0)
}

// Add64 returns x+y rounded once to p, as Add does for codes; x and y may
// be any float64, not only posit values. With Mul64 it makes Posit a
// quant.Arithmetic, which per-operation accumulation uses. A NaN or
// infinite operand gives NaN (NaR); a finite sum never overflows, it
// saturates at ±maxpos.
func (p Posit) Add64(x, y float64) float64 {
	// Most sums in per-op accumulation (all of those of 8- and 16-bit
	// posits) are exact in float64: TwoSum's error is then 0, and
	// rounding the float64 sum is rounding the exact one.
	if t := x + y; isFinite(t) {
		if bb := t - x; (x-(t-bb))+(y-bb) == 0 {
			return p.Round64(t)
		}
	}
	switch {
	case !isFinite(x) || !isFinite(y):
		return math.NaN()
	case x == 0:
		return p.Round64(y)
	case y == 0:
		return p.Round64(x)
	}
	na, sa, ga := float64Parts(x)
	nb, sb, gb := float64Parts(y)
	return p.Decode(p.addParts(na, sa, ga, nb, sb, gb))
}

// Mul64 returns x·y rounded once to p, as Mul does for codes; x and y may
// be any float64. A NaN or infinite operand gives NaN (NaR); the product
// of finite operands is never 0 or NaR unless one of them is 0.
func (p Posit) Mul64(x, y float64) float64 {
	// As in Add64: a product exact in float64 (all products of float32s)
	// is rounded once as it is. Above 2^-960 the FMA's error is exact.
	if q := float64(x * y); isFinite(q) && math.Abs(q) >= 0x1p-960 && math.FMA(x, y, -q) == 0 {
		return p.Round64(q)
	}
	switch {
	case !isFinite(x) || !isFinite(y):
		return math.NaN()
	case x == 0 || y == 0:
		return 0
	}
	na, sa, ga := float64Parts(x)
	nb, sb, gb := float64Parts(y)
	return p.Decode(p.mulParts(na, sa, ga, nb, sb, gb))
}

func isFinite(x float64) bool { return x-x == 0 }

// float64Parts splits a finite nonzero x into its sign, its exponent and
// its significand with the leading one at bit 63 (at most 53 significant
// bits), as decodeParts splits a code.
func float64Parts(x float64) (neg bool, scale int, sig uint64) {
	b := math.Float64bits(x)
	neg = b>>63 == 1
	ex := int(b >> 52 & 0x7ff)
	m := b & (1<<52 - 1)
	if ex == 0 {
		lz := bits.LeadingZeros64(m)
		return neg, 63 - lz - 1074, m << lz
	}
	return neg, ex - 1023, 1<<63 | m<<11
}

// Div returns a/b rounded to p. NaR in, or b == 0, gives NaR.
func (p Posit) Div(a, b uint32) uint32 {
	m, nar := p.Mask(), p.NaR()
	a, b = a&m, b&m
	switch {
	case a == nar || b == nar || b == 0:
		return nar
	case a == 0:
		return 0
	}
	na, sa, ga := p.decodeParts(a)
	nb, sb, gb := p.decodeParts(b)
	// Divide ga·2^64 or ga·2^63 by gb so that the quotient has its
	// leading one at bit 63; the remainder is the sticky bit.
	var q, r uint64
	s := sa - sb
	if ga < gb {
		q, r = bits.Div64(ga, 0, gb)
		s--
	} else {
		q, r = bits.Div64(ga>>1, ga<<63, gb)
	}
	return p.encodeParts(na != nb, s, q, r != 0)
}

// Sqrt returns the square root of a rounded to p. NaR or a negative a gives
// NaR.
func (p Posit) Sqrt(a uint32) uint32 {
	m, nar := p.Mask(), p.NaR()
	a &= m
	if a == 0 || a == nar || a>>(p.n-1) == 1 {
		if a == 0 {
			return 0
		}
		return nar
	}
	_, s, g := p.decodeParts(a)
	// a = S·2^(s-31) with S = g>>32 exact (at most 30 significant bits).
	// Write a = z·2^e with e even and z in [2^62, 2^64); then
	// sqrt(a) = sqrt(z)·2^(e/2) and isqrt(z) has 32 bits, more than the
	// 30-bit significand plus guard that rounding needs.
	z, e := g>>1, s-62 // z = S<<31
	if e&1 != 0 {
		z, e = g, s-63 // z = S<<32
	}
	r := isqrt64(z)
	return p.encodeParts(false, e/2+31, r<<32, r*r != z)
}

// isqrt64 returns floor(sqrt(z)) for z < 2^64.
func isqrt64(z uint64) uint64 {
	r := uint64(math.Sqrt(float64(z)))
	if r > 1<<32-1 {
		r = 1<<32 - 1
	}
	for r*r > z {
		r--
	}
	for r < 1<<32-1 && (r+1)*(r+1) <= z {
		r++
	}
	return r
}
