package quant

import (
	"math"
	"math/rand/v2"
)

// floatKernel holds the constants of the bit-manipulation rounding kernel,
// each repeated eight times so that the vector kernel can use them as
// memory operands. The layout is shared with float_kernel_amd64.s.
type floatKernel struct {
	abs     [8]uint32 // 0x7fffffff
	halfm1  [8]uint32 // 2^(d-1) - 1, where d = 23-m bits are dropped
	lsbOne  [8]uint32 // 1 if d > 0: the kept lsb, for ties to even
	keep    [8]uint32 // ^(2^d - 1)
	minNorm [8]uint32 // bits of the smallest normal; 0 without subnormals
	magic   [8]uint32 // bits of 2^(emin-m+23): adding it rounds to the subnormal quantum
	ftz     [8]uint32 // results below this flush to 0 (bits of the smallest normal, or 0)
	maxBits [8]uint32 // bits of the largest finite value (0x7f800000 if beyond float32)
	ovf     [8]uint32 // what replaces a result above maxBits: Inf or maxBits
	nanKeep [8]uint32 // all ones if NaN stays NaN, 0 if it becomes +0
	fnuz    [8]uint32 // all ones if zero loses its sign
	inf     [8]uint32 // 0x7f800000
	lsbXor  [8]uint32 // 1 if the kept lsb's parity is not the code's (m = 0, even bias)
	shift   uint64    // d
	// fastLo2 and fastSpan2 are the fast span of the vector kernels: for
	// lo <= |x| <= hi, x and its rounding are normal in f and finite, so
	// rounding is the normal path alone, the sign riding along. With y =
	// the bits of x shifted left once, x is in it iff y-fastLo2 <=
	// fastSpan2, unsigned: fastLo2 = 2·lo, fastSpan2 = 2·(hi-lo)+1 (1 and
	// 0, which no even y passes, if the span is empty).
	fastLo2, fastSpan2 uint32
	// fixSub says that float32 subnormal inputs are not handled (the
	// smallest normal is below float32's): the caller rounds them exactly.
	fixSub bool
	// wideLo2 and wideSpan2 are, in the same form, the wide span of the
	// AVX2 kernel: where x is a float32 normal, its rounding is finite
	// and not zero, and nothing is flushed, so that rounding is the
	// normal or the subnormal path by |x| against minNorm, the sign put
	// back, with no other check (FASTSUB8). Empty without subnormals.
	wideLo2, wideSpan2 [8]uint32
	// addLo2 and addSpan2 are, in the form of fastLo2, the span of the
	// vector kernels' FLOAT8 and FLOAT16 paths, which round x by float32
	// arithmetic: x + M - M, M = ±2^(max(E, emin)+d) with E the exponent
	// byte of x and emin that of the smallest normal (addEmin<<23), d =
	// addBias>>23, so that the sum's ulp is the quantum of x in f and the
	// adder rounds to it, ties to even: the normal path and the subnormal
	// one in seven instructions. It is the wide span where there is one,
	// else the fast span, up to where M stays finite; empty for m = 0,
	// where a tie goes to the even exponent field rather than to 2^(E+1),
	// and for m = 23 (d = 0), where |x| < M fails.
	addLo2, addSpan2, addEmin, addBias uint32
}

func splat(v uint32) (a [8]uint32) {
	for i := range a {
		a[i] = v
	}
	return a
}

// kernel returns the constants of the bit-manipulation kernel, or false if
// f needs the general path: more mantissa bits than float32, or a smallest
// normal above 2^(104+m).
func (f Float) kernel() (k floatKernel, ok bool) {
	m, emin := int(f.m), f.emin()
	if m > 23 || emin > 104+m {
		return k, false
	}
	d := uint32(23 - m)
	k.abs = splat(0x7fffffff)
	if d > 0 {
		k.halfm1 = splat(1<<(d-1) - 1)
		k.lsbOne = splat(1)
	}
	if m == 0 && (int(f.bias)-127)&1 == 1 {
		// The kept lsb is the float32 exponent's; the code's is the
		// exponent field's, E+bias rather than E+127.
		k.lsbXor = splat(1)
	}
	k.keep = splat(^uint32(1<<d - 1))
	switch {
	case emin < -126:
		// Every float32 normal is a normal of f; float32 subnormals are
		// left to the caller.
		k.fixSub = true
	case f.noSub:
		// Flush |x| below the tie between the smallest normal and the
		// largest value under it on the unbounded grid, minNormal·(1 -
		// 2^-(m+2)). That tie goes up to the even smallest normal for
		// m >= 1 and down for m = 0.
		t := math.Ldexp(1-math.Ldexp(1, -m-2), emin)
		tb := math.Float32bits(float32(t))
		if float64(float32(t)) < t || m == 0 {
			tb++
		}
		k.ftz = splat(tb)
	default:
		k.minNorm = splat(uint32(emin+127) << 23)
		k.magic = splat(uint32(emin-m+23+127) << 23)
	}
	maxBits := uint32(0x7f800000)
	if mx := f.Max(); mx <= math.MaxFloat32 {
		maxBits = math.Float32bits(float32(mx))
	}
	k.maxBits = splat(maxBits)
	if f.sat {
		k.ovf = k.maxBits
	} else {
		k.ovf = splat(0x7f800000)
	}
	if f.hasNaN() {
		k.nanKeep = splat(^uint32(0))
	}
	if f.special == SpecialsFNUZ {
		k.fnuz = splat(^uint32(0))
	}
	k.inf = splat(0x7f800000)
	k.shift = uint64(d)
	// Below max(minNorm, ftz) the subnormal path or the flush applies;
	// float32 subnormals (fixSub) and zeros are left out too. At or below
	// the largest finite value, a result cannot pass it or overflow.
	lo := max(k.minNorm[0], k.ftz[0], 0x00800000)
	hi := min(maxBits, 0x7f7fffff)
	k.fastLo2, k.fastSpan2 = 1, 0
	if lo <= hi {
		k.fastLo2, k.fastSpan2 = lo<<1, (hi-lo)<<1+1
	}
	// Above half the smallest subnormal (a tie there goes to the even 0)
	// the rounding is not zero, so FNUZ's unsigned zero never arises.
	k.wideLo2, k.wideSpan2 = splat(1), splat(0)
	if k.minNorm[0] != 0 && k.ftz[0] == 0 {
		half := math.Ldexp(1, emin-m-1)
		wlo := max(math.Float32bits(float32(half))+1, 0x00800000)
		if float64(float32(half)) != half {
			wlo = 0x00800000 // not reached: emin >= -126 puts half in float32's range
		}
		if wlo <= hi {
			k.wideLo2, k.wideSpan2 = splat(wlo<<1), splat((hi-wlo)<<1+1)
		}
	}
	// The span of FLOAT8: the wide span, or the fast one, below the
	// first exponent byte whose M = 2^(E+d) would overflow.
	k.addLo2, k.addSpan2 = 1, 0
	k.addEmin = uint32(max(emin+127, 1)) << 23
	k.addBias = d << 23
	if d > 0 && m > 0 {
		lo2, span2 := k.fastLo2, k.fastSpan2
		if k.wideSpan2[0] != 0 {
			lo2, span2 = k.wideLo2[0], k.wideSpan2[0]
		}
		if span2 != 0 {
			lo, hi := lo2>>1, lo2>>1+(span2-1)>>1
			hi = min(hi, (255-d)<<23-1)
			if lo <= hi {
				k.addLo2, k.addSpan2 = lo<<1, (hi-lo)<<1+1
			}
		}
	}
	return k, true
}

// round rounds the float32 with bits b; it is the scalar form of the vector
// kernel, lane 0 of each constant.
func (k *floatKernel) round(b uint32) uint32 {
	s := b & 0x80000000
	a := b & 0x7fffffff
	var r uint32
	if a < k.minNorm[0] {
		// Below the smallest normal the quantum is fixed: adding 2^(emin-m+23)
		// lands in a binade whose ulp is that quantum, so the float32 adder
		// rounds to it, ties to even.
		c := math.Float32frombits(k.magic[0])
		r = math.Float32bits(math.Float32frombits(a) + c - c)
	} else {
		// Round to nearest even by adding half-1 plus the kept lsb, then
		// truncate; a carry into the exponent is the right result.
		r = (a + k.halfm1[0] + ((a>>k.shift)&k.lsbOne[0] ^ k.lsbXor[0])) & k.keep[0]
	}
	if a < k.ftz[0] {
		r = 0
	}
	if r > k.maxBits[0] {
		r = k.ovf[0]
	}
	if r == 0 {
		s &^= k.fnuz[0]
	}
	r |= s
	if a > 0x7f800000 {
		r = b & k.nanKeep[0]
	}
	return r
}

// roundSliceGo is the portable kernel. It leaves float32 subnormal inputs
// to the caller if k.fixSub.
func (k *floatKernel) roundSliceGo(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = math.Float32frombits(k.round(math.Float32bits(x)))
	}
}

// floatChunk is how many elements roundFloatChunked hands to the kernel at
// a time; the inputs it must redo live on the stack.
const floatChunk = 512

// roundFloatChunked runs the kernel (the portable Go one if portable is
// set) over src in chunks, then rounds the float32
// subnormal inputs, which the kernel does not handle when k.fixSub, by the
// exact path. It saves them first, as dst may be src.
func (f Float) roundFloatChunked(dst, src []float32, k *floatKernel, portable bool) {
	// A plain choice of path rather than a function value, which would
	// move k to the heap on every call.
	kern := func(d, s []float32) {
		if portable {
			k.roundSliceGo(d, s)
		} else {
			roundFloatSlice(d, s, k)
		}
	}
	if !k.fixSub {
		kern(dst, src)
		return
	}
	var idx [floatChunk]int32
	var val [floatChunk]float32
	for i := 0; i < len(src); i += floatChunk {
		s := src[i:min(i+floatChunk, len(src))]
		d := dst[i : i+len(s)]
		n := 0
		for j, x := range s {
			if b := math.Float32bits(x) & 0x7fffffff; b != 0 && b < 0x00800000 {
				idx[n], val[n] = int32(j), x
				n++
			}
		}
		kern(d, s)
		for j := range n {
			d[idx[j]] = float32(f.Round64(float64(val[j])))
		}
	}
}

// RoundSlice sets dst[i] = Round(src[i]). For m <= 23 and a smallest normal
// up to 2^(104+m), which covers every format of up to 24 bits with a
// sensible bias, it works on the float32 bits, 8 lanes at a time with AVX2
// where the CPU has it; other formats take the exact float64 path.
func (f Float) RoundSlice(dst, src []float32) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	if f == FP32 {
		copy(dst, src)
		return
	}
	k, ok := f.kernel()
	if !ok {
		for i, x := range src {
			dst[i] = float32(f.Round64(float64(x)))
		}
		return
	}
	f.roundFloatChunked(dst, src, &k, false)
}

// RoundSliceStochastic rounds each src[i] to one of the two values of f
// that bracket it, the upper with probability (src[i]-lo)/(hi-lo), exact to
// 2^-64. Without subnormals the brackets below the smallest normal are 0 and
// the smallest normal. A magnitude that would round up past max gives ±max
// (saturate) or ±Inf; NaN and ±Inf are rounded as by Round. Each element
// uses one rng.Uint64.
func (f Float) RoundSliceStochastic(dst, src []float32, rng *rand.PCG) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	k, ok := f.kernel()
	if !ok {
		for i, x := range src {
			dst[i] = float32(f.roundStoch64(float64(x), rng.Uint64()))
		}
		return
	}
	// Where x is finite and at least the smallest normal, round on the
	// float32 bits: up iff the top d bits of u are below the d dropped
	// bits, which is the decision roundMag makes with the same u. The rest
	// takes the general path.
	d := uint32(k.shift)
	low := ^k.keep[0]
	minNorm := uint32(max(f.emin(), -126)+127) << 23
	for i, x := range src {
		u := rng.Uint64()
		b := math.Float32bits(x)
		a := b & 0x7fffffff
		if a < minNorm || a >= 0x7f800000 {
			dst[i] = float32(f.roundStoch64(float64(x), u))
			continue
		}
		top := uint32(u >> (64 - d)) // 0 when d = 0
		r := a&^low + (top-a&low)>>31<<d
		if r > k.maxBits[0] {
			r = k.ovf[0]
		}
		dst[i] = math.Float32frombits(r | b&0x80000000)
	}
}

// roundStoch64 rounds x stochastically with the random bits u.
func (f Float) roundStoch64(x float64, u uint64) float64 {
	a := math.Abs(x)
	if a == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return f.Round64(x)
	}
	a = f.roundMag(a, u, true)
	if a == 0 && f.special == SpecialsFNUZ {
		return 0
	}
	return math.Copysign(a, x)
}
