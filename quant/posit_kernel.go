package quant

import (
	"math"
	"math/rand/v2"
)

// Posit rounding kernels.
//
// For a normal float32 x with exponent byte E, let s = E-127+bias be the
// binary exponent of x·2^bias, k = floor(s/2^es) its regime and e = s mod
// 2^es its posit exponent. The posit bit pattern of |x·2^bias| is
//
//	regime(k) | e (es bits) | the 23 mantissa bits of x | 0 0 0 ...
//
// and the low 23+es bits of a+off, where a is the float32 bit pattern of
// |x| and off = ((bias-127) mod 2^es)<<23, are exactly e | mantissa. So
// rounding the pattern to n bits, ties to even on the pattern, is rounding
// the integer a+off to a multiple of 2^drop, ties to even, where drop =
// 23+es+rlen-(n-1) is the number of pattern bits beyond the code and
// rlen = max(k+2, 1-k) the regime's length. Subtracting off gives the bit
// pattern of the rounded float32. A carry out of the fraction or exponent
// yields 2^(s+1) or useed^(k+1), which is the next posit's value, so it
// needs no special case.
//
// This holds while the code keeps at least one exponent bit (rlen <= n-2:
// drop <= 22+es), so that the code's last bit is a bit of a+off; and when x
// and the result are normal float32s.
//
// The rest of the line has only four posits: minpos and the code after it
// below, maxpos and the code before it above, with geometric ties between
// them. Since the bit patterns of non-negative float32s are ordered like
// their values, the slice kernels settle these inputs, zeros and
// subnormals included, by comparing a with four thresholds (positSlice).
// Infinities, NaN, and the rare results outside float32's normal range go
// to Posit.roundSlow.

// positKernel holds the constants of the bit-manipulation path. It is
// computed from a Posit in a few instructions, so that Posit stays a small
// comparable value. The assembly kernels rely on its layout: six 32-bit
// words in this order.
type positKernel struct {
	sOff int32  // bias-127: s = E+sOff
	es   uint32 // k = s>>es
	c1   int32  // drop = max(k+c1, c2-k)
	c2   int32
	dMax int32  // 22+es: largest drop that keeps an exponent bit
	off  uint32 // ((bias-127) mod 2^es)<<23
}

func (p Posit) kernel() positKernel {
	es := int32(p.es)
	c0 := 24 - int32(p.n) + es // drop = c0 + rlen
	sOff := int32(p.scale) - 127
	return positKernel{
		sOff: sOff,
		es:   uint32(es),
		c1:   c0 + 2,
		c2:   c0 + 1,
		dMax: 22 + es,
		off:  uint32(sOff&(1<<es-1)) << 23,
	}
}

const (
	positSignBit   = 1 << 31
	positMinNormal = 1 << 23   // bit pattern of the smallest normal float32
	positNormRange = 254 << 23 // a-positMinNormal < positNormRange: a is a normal float32
)

// round returns x rounded to the posit and true, or false if x is outside
// the kernel's domain.
func (kp positKernel) round(x float32) (float32, bool) {
	b := math.Float32bits(x)
	a := b &^ positSignBit
	k := (int32(a>>23) + kp.sOff) >> kp.es
	drop := max(k+kp.c1, kp.c2-k)
	if a-positMinNormal >= positNormRange || drop > kp.dMax {
		return 0, false
	}
	drop = max(drop, 0) // n > 24: x fits in the code
	v := a + kp.off
	low := uint32(1)<<(drop&31) - 1
	half := (low>>1 + v>>(drop&31)&1) & low // half-1, plus 1 if the kept part is odd
	r := (v+half)&^low - kp.off
	if r-positMinNormal >= positNormRange {
		return 0, false
	}
	return math.Float32frombits(r | b&positSignBit), true
}

// positSlice holds the constants of the slice kernels: positKernel's, and
// the float32 bit patterns of the thresholds and results of the regions
// beyond it. The assembly kernels rely on its layout.
type positSlice struct {
	positKernel
	// |x| < lo (bits) is below the regular region: it rounds to the code
	// after minpos if |x| >= loTie, else to minpos. |x| >= hi is above it:
	// it rounds to maxpos if |x| >= hiTie, else to the code before maxpos.
	lo, loTie, hi, hiTie uint32
	// The results: the values of those four codes, as Round gives them.
	minB, lowB, highB, maxB uint32
	// fastLo <= |x| < fastLo+fastSpan (bits) is the part of the regular
	// region where x and its rounding are surely normal float32s, so the
	// AVX-512 kernel can skip every check for a block that lies in it.
	fastLo, fastSpan uint32
}

func (p Posit) slice() positSlice {
	c := positSlice{positKernel: p.kernel()}
	n, es, bias := int(p.n), int(p.es), int(p.scale)
	if n == 2 { // 1 is the only positive value
		one := f32Bits(p.Decode(1))
		c.lo, c.hi, c.hiTie = 1, 1, positInf
		c.minB, c.lowB, c.highB, c.maxB = one, one, one, one
		return c
	}
	// The ties are the (n+1)-bit posits 3 and 2^n-3: regime 0..01 (k =
	// 2-n) or 1..10 (k = n-3), then a single 1 bit: the top exponent bit,
	// or for es = 0 the fraction's first.
	loTie := math.Ldexp(1, (2-n)<<es-bias)
	hiTie := math.Ldexp(1, (n-3)<<es-bias)
	if es == 0 {
		loTie, hiTie = 1.5*loTie, 1.5*hiTie
	} else {
		loTie, hiTie = math.Ldexp(loTie, 1<<(es-1)), math.Ldexp(hiTie, 1<<(es-1))
	}
	mc := p.MaxCode()
	c.lo = f32Ceil(p.Decode(2))
	c.loTie = f32Ceil(loTie)         // a tie goes to the even code 2
	c.hi = f32Ceil(p.Decode(mc - 1)) // useed^(n-3): the regular region ends
	c.hiTie = f32Above(hiTie)        // a tie goes to the even code maxCode-1
	c.minB, c.lowB = f32Bits(p.Decode(1)), f32Bits(p.Decode(2))
	c.highB, c.maxB = f32Bits(p.Decode(mc-1)), f32Bits(p.Decode(mc))
	// Rounding in the regular region moves x by less than a factor
	// 2^(2^es) (one exponent bit, at worst, survives), so the result is a
	// normal float32 if |x| is in [2^(-126+2^es), 2^(128-2^es)).
	// The vector kernels also need E+sOff in a signed byte there (see
	// POSIT_FAST8).
	fastLo := max(c.lo, uint32(1+1<<es)<<23, uint32(max(1, -128-c.sOff))<<23)
	fastHi := min(c.hi, uint32(255-1<<es)<<23, uint32(max(0, min(255, 128-c.sOff)))<<23)
	if fastHi > fastLo {
		c.fastLo, c.fastSpan = fastLo, fastHi-fastLo
	}
	return c
}

// lowTable returns, for each binade E (the exponent byte of |x|) of the
// fast span, low = 2^drop-1 at index E mod 32, and whether the table
// covers the span: it has at most 32 binades, and drop is at least 1 in
// each (so that low>>1 plus the kept lsb is the half of
// positKernel.round). The table kernel (roundPositAVX512T) looks low up
// instead of computing drop = max(k+c1, c2-k), k = (E+sOff)>>es.
func (c *positSlice) lowTable() (t [32]uint32, ok bool) {
	if c.fastSpan == 0 || c.c2 < -1 {
		return t, false // no fast span (see roundPositAVX2)
	}
	e0, e1 := c.fastLo>>23, (c.fastLo+c.fastSpan-1)>>23
	if e1-e0 >= 32 {
		return t, false
	}
	for e := e0; e <= e1; e++ {
		k := (int32(e) + c.sOff) >> c.es
		drop := max(k+c.c1, c.c2-k)
		if drop < 1 || drop > c.dMax {
			return t, false
		}
		t[e&31] = 1<<drop - 1
	}
	return t, true
}

const positInf = 0x7f800000 // bit pattern of +Inf

// f32Bits returns the bit pattern of toFloat32Sat(v).
func f32Bits(v float64) uint32 { return math.Float32bits(toFloat32Sat(v)) }

// f32Ceil returns the bit pattern of the least float32 >= v > 0 (+Inf if
// there is none), so that for float32 x >= 0, x >= v iff bits(x) >= it.
func f32Ceil(v float64) uint32 {
	if v > math.MaxFloat32 {
		return positInf
	}
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return math.Float32bits(f)
}

// f32Above returns the bit pattern of the least float32 > v > 0 (+Inf if
// there is none): for float32 x >= 0, x > v iff bits(x) >= it.
func f32Above(v float64) uint32 {
	b := f32Ceil(v)
	if b != positInf && float64(math.Float32frombits(b)) == v {
		b++
	}
	return b
}

// positShort is the length below which computing positSlice costs more
// than it saves.
const positShort = 32

// roundPositGo is the portable RoundSlice kernel.
func roundPositGo(dst, src []float32, p Posit) {
	dst = dst[:len(src)]
	if len(src) < positShort {
		for i, x := range src {
			dst[i] = p.Round(x)
		}
		return
	}
	c := p.slice()
	for i, x := range src {
		b := math.Float32bits(x)
		a := b &^ positSignBit
		var r uint32
		switch {
		case a < c.lo:
			if a == 0 {
				dst[i] = 0
				continue
			}
			r = c.minB
			if a >= c.loTie {
				r = c.lowB
			}
		case a >= c.hi:
			if a >= positInf {
				dst[i] = p.roundSlow(x)
				continue
			}
			r = c.highB
			if a >= c.hiTie {
				r = c.maxB
			}
		default: // positKernel.round, by hand for speed
			k := (int32(a>>23) + c.sOff) >> c.es
			drop := max(k+c.c1, c.c2-k, 0)
			v := a + c.off
			low := uint32(1)<<(drop&31) - 1
			half := (low>>1 + v>>(drop&31)&1) & low
			r = (v+half)&^low - c.off
			if a-positMinNormal >= positNormRange || r-positMinNormal >= positNormRange {
				dst[i] = p.roundSlow(x)
				continue
			}
		}
		dst[i] = math.Float32frombits(r | b&positSignBit)
	}
}

// roundPositStochGo is the RoundSliceStochastic kernel.
func roundPositStochGo(dst, src []float32, p Posit, rng *rand.PCG) {
	kp := p.kernel()
	dst = dst[:len(src)]
	var bits uint64
	for i, x := range src {
		if i&1 == 0 {
			bits = rng.Uint64()
		} else {
			bits >>= 32
		}
		// Where the two posits around x lie in one binade (drop <= 23),
		// adding drop random bits to the pattern before truncating it
		// rounds up with probability exactly (x-lo)/(hi-lo).
		b := math.Float32bits(x)
		a := b &^ positSignBit
		k := (int32(a>>23) + kp.sOff) >> kp.es
		drop := max(k+kp.c1, kp.c2-k, 0)
		low := uint32(1)<<(drop&31) - 1
		r := (a+kp.off+uint32(bits)&low)&^low - kp.off
		if drop > 23 || a-positMinNormal >= positNormRange || r-positMinNormal >= positNormRange {
			dst[i] = p.roundStochSlow(x, uint32(bits))
			continue
		}
		dst[i] = math.Float32frombits(r | b&positSignBit)
	}
}

// roundStochSlow is stochastic rounding by the definition: find the posits
// on either side of x and pick the upper with probability (x-lo)/(hi-lo),
// resolved to 2^-32 by u.
func (p Posit) roundStochSlow(x float32, u uint32) float32 {
	c := p.Encode(x)
	if c == 0 || c == p.NaR() { // ±0, ±Inf, NaN
		return p.roundSlow(x)
	}
	v, xf := p.Decode(c), float64(x)
	if v == xf {
		return toFloat32Sat(v)
	}
	o := c - 1 // codes are two's-complement integers ordered like their values
	if xf > v {
		o = c + 1
	}
	o &= p.Mask()
	if o == 0 || o == p.NaR() { // x is beyond maxpos or below minpos
		return toFloat32Sat(v)
	}
	w := p.Decode(o)
	// v and w have at most 32 significant bits and lie within a factor
	// useed <= 2^16 of x, so x-v and w-v are exact; only the division
	// rounds, far below the draw's resolution.
	if float64(u) < (xf-v)/(w-v)*0x1p32 {
		v = w
	}
	return toFloat32Sat(v)
}

// positSliceKernel is a named RoundSlice kernel.
type positSliceKernel struct {
	name  string
	round func(dst, src []float32, p Posit)
}

// positStochKernel is a named RoundSliceStochastic kernel.
type positStochKernel struct {
	name  string
	round func(dst, src []float32, p Posit, rng *rand.PCG)
}
