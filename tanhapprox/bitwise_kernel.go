package tanhapprox

import (
	"math"
	"math/bits"
)

// fastMaxBits is the widest posit(n,0) the float32 kernels handle; wider
// formats go through quant. Up to 16 bits every posit(n,0) value, and
// every R = 2s-1, is a float32.
const fastMaxBits = 16

// encodeMag returns the posit(n,0) code of |x| rounded to nearest (ties to
// even on the bit pattern, as quant.Posit.Encode), for 3 <= n <= 16, and
// whether x is negative. Nonzero magnitudes never round to 0, magnitudes
// beyond maxpos give maxpos; NaN and ±Inf give NaR (1<<(n-1)). The common
// path has no data-dependent branch: inputs of both signs of log2|x| mix
// in a tensor, and a mispredicted branch costs more than the arithmetic.
func encodeMag(x float32, n uint) (code uint32, neg bool) {
	b := math.Float32bits(x)
	a := b &^ (1 << 31)
	neg = b != a
	maxK := int(n) - 2
	k := int(a>>23) - 127 // 0 gives -127, subnormals too: below minpos for n <= 16
	if uint(k+maxK) >= uint(2*maxK) {
		switch {
		case a == 0:
			return 0, neg
		case a >= 0x7f800000:
			return 1 << (n - 1), neg
		case k >= maxK:
			return 1<<(n-1) - 1, neg
		}
		return 1, neg
	}
	// Left-align the regime of k (k+1 ones and a zero, or -k zeros and a
	// one) followed by the 23 fraction bits. With t = 63-|k|, the regime
	// is the bits above bit t (k >= 0) or bit t alone (k < 0).
	s := k >> 63      // -1 if k < 0, else 0
	ak := (k ^ s) - s // |k|
	t := uint(63-ak) & 63
	one := uint64(1) << t
	m := uint64(s)
	reg := ^(one-1)&^m | one&m
	acc := reg | uint64(a&0x7fffff)<<((t-24+uint(s&1))&63)
	code = uint32(acc >> (65 - n))
	guard := uint32(acc>>(64-n)) & 1
	rest := acc << n
	sticky := uint32((rest | -rest) >> 63)
	return code + guard&(sticky|code&1), neg
}

// encode0 returns the posit(n,0) code nearest to x, 3 <= n <= 16.
func encode0(x float32, n uint) uint32 {
	m, neg := encodeMag(x, n)
	if neg {
		m = -m & (1<<n - 1)
	}
	return m
}

// double0 returns the code of 2x rounded to posit(n,0), for the code m of
// a magnitude 0 <= x <= maxpos. Below 1/2 the regime loses a zero: the
// body shifts left, exactly. On [1/2,1) the regime 01 becomes 10: m plus
// the code of 1/2. (On [0,1) the result is the lesser of the two.) From 1
// on the regime gains a one: the body shifts right, dropping one fraction
// bit, which is a tie and rounds to even; maxpos stays maxpos.
func double0(m uint32, n uint) uint32 {
	half := uint32(1) << (n - 2) // the code of 1
	lo := m << 1
	if q := m + half>>1; q < lo {
		lo = q
	}
	d := m>>1 | half
	d += m & d & 1
	if d >= half<<1 {
		d = half<<1 - 1
	}
	if m < half {
		d = lo
	}
	return d
}

// decode0 returns the value of the posit(n,0) code c (3 <= n <= 16), which
// is not NaR, as a float32 (exact).
func decode0(c uint32, n uint) float32 {
	mask := uint32(1)<<n - 1
	c &= mask
	if c == 0 {
		return 0
	}
	neg := c>>(n-1) != 0
	if neg {
		c = -c & mask
	}
	x := c << (33 - n) // the n-1 body bits, left-aligned
	var run, k int
	if x>>31 != 0 {
		run = bits.LeadingZeros32(^x)
		k = run - 1
	} else {
		run = bits.LeadingZeros32(x)
		k = -run
	}
	frac := x << uint(run+1)
	f := uint32(k+127)<<23 | frac>>9
	if neg {
		f |= 1 << 31
	}
	return math.Float32frombits(f)
}

// sigmoidKernel is Bitwise.Apply for the sigmoid, n <= fastMaxBits.
func sigmoidKernel(dst, src []float32, n uint) {
	nar := uint32(1) << (n - 1)
	scale := 1 / float32(uint32(1)<<(n-2))
	nan := float32(math.NaN())
	for i, x := range src {
		m, neg := encodeMag(x, n)
		if m == nar {
			dst[i] = nan
			continue
		}
		// (c XOR nar) >> 2 for c = m or c = -m (mod 2^n).
		u := nar + m
		if neg {
			u = nar - m
		}
		dst[i] = float32(u>>2) * scale
	}
}

// tanhKernel is Bitwise.Apply for tanh, n <= fastMaxBits.
func tanhKernel(dst, src []float32, n uint, corrected bool, theta, delta float64) {
	nar := uint32(1) << (n - 1)
	scale := 1 / float64(uint32(1)<<(n-3))
	nan := float32(math.NaN())
	// R = u·scale - 1 for the sigmoid code u. The correction adds
	// corr[1 + (u > uHi) - (u < uLo)], which is R > theta and R < -theta
	// decided on u without a branch; uncorrected, corr is all zero.
	var corr [3]float64
	uHi, uLo := nar, uint32(0)
	if corrected {
		corr = [3]float64{-delta, 0, delta}
		uHi, uLo = thresholds(theta, scale, nar>>1)
	}
	for i, x := range src {
		m, neg := encodeMag(x, n)
		if m == nar {
			dst[i] = nan
			continue
		}
		t := double0(m, n)
		u := nar + t
		if neg {
			u = nar - t
		}
		u >>= 2
		r := float64(float64(u)*scale) - 1 + corr[1+b2u(u > uHi)-b2u(u < uLo)] // u·scale - 1 is exact
		dst[i] = float32(max(min(r, 1), -1))
	}
}

// thresholds returns the largest u with u·scale - 1 <= theta and the
// smallest u with u·scale - 1 >= -theta, for 0 <= u < top, deciding each
// by the same exact comparison the scalar path makes.
func thresholds(theta, scale float64, top uint32) (uHi, uLo uint32) {
	r := func(u uint32) float64 { return float64(float64(u)*scale) - 1 } // float64(…): no arm64 FMA
	uHi = uint32(math.Floor((theta + 1) / scale))
	for uHi+1 < top && r(uHi+1) <= theta {
		uHi++
	}
	for uHi > 0 && r(uHi) > theta {
		uHi--
	}
	uLo = uint32(math.Ceil((1 - theta) / scale))
	for uLo > 0 && r(uLo-1) >= -theta {
		uLo--
	}
	for uLo < top && r(uLo) < -theta {
		uLo++
	}
	return uHi, uLo
}

// b2u converts a comparison to 0 or 1 (compiled to a flag set, no branch).
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
