package quant

import (
	"math"
	"math/big"
	"sort"
)

// A reference implementation of posit(n, es) written from the definition,
// independent of posit.go: a code is decoded by reading its sign, regime,
// exponent and fraction bits into an exact big.Rat, and a real x is
// rounded by locating it among the posit values and comparing it exactly
// with the tie point between its two neighbours c and c+1, which by the
// standard is the value of the (n+1)-bit posit 2c+1. Values are big.Floats
// of 64-bit precision, which hold every posit of up to 33 bits exactly.

// refDecode returns the exact value of the n-bit code c (n <= 33) times
// 2^-k, or nil for NaR.
func refDecode(n, es int, c uint64, kbias int) *big.Float {
	mask := uint64(1)<<n - 1
	c &= mask
	if c == 0 {
		return new(big.Float)
	}
	if c == 1<<(n-1) {
		return nil
	}
	neg := c>>(n-1) == 1
	if neg {
		c = -c & mask // two's complement
	}
	// The body is the n-1 bits after the sign, read from the top; bits
	// past the end read as 0.
	body := func(i int) uint64 {
		if i >= n-1 {
			return 0
		}
		return c >> (n - 2 - i) & 1
	}
	first := body(0)
	i := 0
	for i < n-1 && body(i) == first {
		i++
	}
	k := -i // regime: a run of i zeros
	if first == 1 {
		k = i - 1 // a run of i ones
	}
	i++ // the terminating bit
	e := 0
	for j := 0; j < es; j++ {
		e = e<<1 | int(body(i))
		i++
	}
	// The significand 1.f as an integer: a one, then the fraction bits.
	sig := uint64(1)
	fbits := 0
	for ; i < n-1; i++ {
		sig = sig<<1 | body(i)
		fbits++
	}
	// value = useed^k · 2^e · 1.f, useed = 2^(2^es), then the bias.
	v := new(big.Float).SetPrec(64).SetUint64(sig)
	v.SetMantExp(v, k<<es+e-fbits-kbias)
	if neg {
		v.Neg(v)
	}
	return v
}

// refFloat64 converts r to float64, panicking unless it is exact: every
// value and tie point the tests use is a float64, which lets the search
// below compare with plain float64 comparisons and stay exact.
func refFloat64(r *big.Float) float64 {
	f, acc := r.Float64()
	if acc != big.Exact {
		panic("refFloat64: " + r.String() + " is not a float64")
	}
	return f
}

// refFormat is posit(n,es) with exponent bias k: its code c stands for
// refDecode(n,es,c)·2^-k.
type refFormat struct {
	n, es, k int
	// For n <= 16, the tables of values and tie points: val[c] for
	// c = 0..maxCode, tie[c] between codes c and c+1 for c = 1..maxCode-1.
	val, tie []float64
}

func newRefFormat(n, es, k int) *refFormat {
	f := &refFormat{n: n, es: es, k: k}
	if n <= 16 {
		mc := f.maxCode()
		f.val = make([]float64, mc+1)
		f.tie = make([]float64, mc)
		for c := uint64(1); c <= mc; c++ {
			f.val[c] = f.value(c)
			if c < mc {
				f.tie[c] = f.tieValue(c)
			}
		}
	}
	return f
}

func (f *refFormat) maxCode() uint64 { return 1<<(f.n-1) - 1 }

// value returns the value of code c (NaN for NaR), computed from the
// definition.
func (f *refFormat) value(c uint64) float64 {
	r := refDecode(f.n, f.es, c, f.k)
	if r == nil {
		return math.NaN()
	}
	return refFloat64(r)
}

// tieValue returns the tie point between codes c and c+1: the value of the
// (n+1)-bit posit 2c+1.
func (f *refFormat) tieValue(c uint64) float64 {
	return refFloat64(refDecode(f.n+1, f.es, 2*c+1, f.k))
}

// valueOf returns the value of code c from the table or the definition.
func (f *refFormat) valueOf(c uint64) float64 {
	mask := uint64(1)<<f.n - 1
	c &= mask
	switch {
	case f.val == nil || c == f.maxCode()+1:
		return f.value(c)
	case c > f.maxCode():
		return -f.val[-c&mask]
	}
	return f.val[c]
}

// encode returns the code nearest to x: saturating at minpos and maxpos,
// otherwise the code c with val[c] <= |x| < val[c+1], moved up if |x| is
// beyond the tie point, or is on it and c is odd.
func (f *refFormat) encode(x float64) uint64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 1 << (f.n - 1)
	case x == 0:
		return 0
	}
	ax := math.Abs(x)
	mc := f.maxCode()
	var c uint64
	switch {
	case ax >= f.valueOf(mc):
		c = mc
	case ax <= f.valueOf(1):
		c = 1
	default:
		// Largest c with value(c) <= ax; values increase with the code.
		lo, hi := uint64(1), mc // value(lo) <= ax < value(hi)
		if f.val != nil {
			lo = uint64(sort.SearchFloat64s(f.val, math.Nextafter(ax, math.Inf(1)))) - 1
		} else {
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if f.value(mid) <= ax {
					lo = mid
				} else {
					hi = mid
				}
			}
		}
		c = lo
		if f.valueOf(c) != ax {
			var t float64
			if f.tie != nil {
				t = f.tie[c]
			} else {
				t = f.tieValue(c)
			}
			if ax > t || ax == t && c&1 == 1 {
				c++
			}
		}
	}
	if x < 0 {
		c = -c & (1<<f.n - 1)
	}
	return c
}

// round64 is Round64 by the reference.
func (f *refFormat) round64(x float64) float64 { return f.valueOf(f.encode(x)) }

// round32 is Round by the reference: the value rounded to float32 to
// nearest, ties to even (by math/big, not by a float32 conversion), except
// that a nonzero value never becomes 0 or ±Inf but ±SmallestNonzeroFloat32
// or ±MaxFloat32.
func (f *refFormat) round32(x float32) float32 { return f.float32(f.encode(float64(x))) }

// float32 returns the value of code c as round32 gives it.
func (f *refFormat) float32(c uint64) float32 {
	v := f.valueOf(c)
	if math.IsNaN(v) {
		return float32(math.NaN())
	}
	if math.Abs(v) > math.MaxFloat32 {
		return float32(math.Copysign(math.MaxFloat32, v))
	}
	if r := float32(v); float64(r) == v {
		return r // exact: no rounding to check
	}
	r, _ := new(big.Float).SetFloat64(v).Float32()
	switch {
	case v != 0 && r == 0:
		return float32(math.Copysign(math.SmallestNonzeroFloat32, v))
	case math.IsInf(float64(r), 0):
		return float32(math.Copysign(math.MaxFloat32, v))
	}
	return r
}

// bracket returns the posit values lo <= x <= hi nearest to x > 0 on
// either side, with lo = 0 below minpos and hi = +Inf beyond maxpos.
func (f *refFormat) bracket(x float64) (lo, hi float64) {
	mc := f.maxCode()
	if x >= f.valueOf(mc) {
		if x == f.valueOf(mc) {
			return x, x
		}
		return f.valueOf(mc), math.Inf(1)
	}
	l, h := uint64(0), mc // value(l) <= x < value(h)
	for h-l > 1 {
		mid := l + (h-l)/2
		if f.valueOf(mid) <= x {
			l = mid
		} else {
			h = mid
		}
	}
	if f.valueOf(l) == x {
		return x, x
	}
	return f.valueOf(l), f.valueOf(h)
}
