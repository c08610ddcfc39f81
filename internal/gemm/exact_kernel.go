package gemm

import (
	"math"
	"math/bits"

	"github.com/positgan/positgan/quant"
)

// quire is an exact accumulator of float64 values: limb i holds the
// multiple of 2^(32i-1074) it has been given, unnormalised; 32 bits of
// headroom per limb allow 2^31 additions before finish.
type quire struct {
	limb   [70]int64
	lo, hi int // range of limbs touched
}

func (q *quire) reset() {
	if q.lo <= q.hi {
		clear(q.limb[q.lo : q.hi+1])
	}
	q.lo, q.hi = len(q.limb), -1
}

func (q *quire) add(x float64) {
	b := math.Float64bits(x)
	e := int(b >> 52 & 0x7ff)
	m := b & (1<<52 - 1)
	if e == 0 {
		if m == 0 {
			return
		}
		e = 1
	} else {
		m |= 1 << 52
	}
	pos := e - 1 // bit position of m's bit 0 above 2^-1074
	i, off := pos>>5, uint(pos&31)
	lo := m << off
	hi := m >> (64 - off) // off < 32: at most 21 bits; off == 0 gives 0
	l0, l1, l2 := int64(lo&0xffffffff), int64(lo>>32), int64(hi)
	if b>>63 == 1 {
		l0, l1, l2 = -l0, -l1, -l2
	}
	q.limb[i] += l0
	q.limb[i+1] += l1
	q.limb[i+2] += l2
	q.lo = min(q.lo, i)
	q.hi = max(q.hi, i+2)
}

// finish normalises the sum and returns its sign, the position of its
// leading one (bit index above 2^-1074), its top 64 bits with the leading
// one at bit 63, and whether any bit below those is nonzero. zero reports a
// zero sum.
func (q *quire) finish() (neg bool, lead int, sig uint64, sticky, zero bool) {
	if q.hi < 0 {
		return false, 0, 0, false, true
	}
	// Carry up; the last limb keeps the sign.
	top := min(q.hi+2, len(q.limb)-1)
	for i := q.lo; i < top; i++ {
		c := q.limb[i] >> 32
		q.limb[i] -= c << 32
		q.limb[i+1] += c
	}
	q.hi = top
	if q.limb[top] < 0 {
		neg = true
		// Negate the two's-complement number held in 32-bit limbs.
		var borrow int64
		for i := q.lo; i <= top; i++ {
			v := -q.limb[i] - borrow
			borrow = 0
			if v < 0 {
				v += 1 << 32
				borrow = 1
			}
			q.limb[i] = v
		}
	}
	h := top
	for h >= q.lo && q.limb[h] == 0 {
		h--
	}
	if h < q.lo {
		return false, 0, 0, false, true
	}
	// Gather up to 96 bits from limbs h, h-1, h-2 into a 128-bit value.
	var w [3]uint64
	for j := 0; j < 3; j++ {
		if h-j >= q.lo {
			w[j] = uint64(q.limb[h-j])
		}
	}
	hiW := w[0]<<32 | w[1] // 64 bits
	loW := w[2] << 32
	lz := bits.LeadingZeros64(hiW)
	sig = hiW<<lz | loW>>(64-lz)
	if lz == 0 {
		sig = hiW
	}
	rest := loW << lz
	sticky = rest != 0
	for i := q.lo; i < h-2 && !sticky; i++ {
		sticky = q.limb[i] != 0
	}
	lead = 32*h + 63 - lz - 32
	return neg, lead, sig, sticky, false
}

// value returns the sum rounded to float64: to odd when odd is set (for a
// second rounding), else to nearest even.
func (q *quire) value(odd bool) float64 {
	neg, lead, sig, sticky, zero := q.finish()
	if zero {
		return 0
	}
	r := sig >> 11
	low := sig & 0x7ff
	if odd {
		if low != 0 || sticky {
			r |= 1
		}
	} else if low > 0x400 || (low == 0x400 && (sticky || r&1 == 1)) {
		r++
	}
	v := math.Ldexp(float64(r), lead-52-1074)
	if neg {
		v = -v
	}
	return v
}

func roundTo[T Float](f quant.Format, x float64) T {
	if f != nil {
		return T(f.Round64(x))
	}
	return T(x)
}

func quireGemm[T Float](f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	var q quire
	q.lo, q.hi = len(q.limb), -1
	_, wide := any(a).([]float64)
	// float32 products are exact in float64; float64 products need their
	// rounding error too (FMA), and a nil format means rounding to nearest
	// float64 directly.
	odd := f != nil || !wide
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			q.reset()
			var plain float64 // the IEEE sum, which NaN and Inf operands give
			special := false
			for l := 0; l < k; l++ {
				x, y := at(a, tA, i, l, lda), at(b, tB, l, j, ldb)
				p := float64(x * y) // float64(…) stops arm64 fusing it into plain += p: same bits as amd64
				plain += p
				if math.IsInf(p, 0) || math.IsNaN(p) {
					special = true
					continue
				}
				q.add(p)
				if wide {
					q.add(math.FMA(x, y, -p))
				}
			}
			if special {
				c[i*ldc+j] = roundTo[T](f, plain)
				continue
			}
			c[i*ldc+j] = roundTo[T](f, q.value(odd))
		}
	}
}

// at returns op(s)[r][col] for a row-major s with stride ld.
func at[T Float](s []T, t bool, r, col, ld int) float64 {
	if t {
		return float64(s[col*ld+r])
	}
	return float64(s[r*ld+col])
}

// odd rounds hi+lo (hi = the nearest float64 of an exact value, lo the
// error) to odd.
func toOdd(hi, lo float64) float64 {
	if lo == 0 || math.Float64bits(hi)&1 == 1 {
		return hi
	}
	return math.Nextafter(hi, math.Inf(int(math.Copysign(1, lo))))
}

func perOpGemm[T Float](f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	var ar quant.Arithmetic = plainArith[T]{}
	if f != nil {
		ar = quant.ArithmeticOf(f)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				p := ar.Mul64(at(a, tA, i, l, lda), at(b, tB, l, j, ldb))
				if l == 0 {
					s = p
					continue
				}
				s = ar.Add64(s, p)
			}
			c[i*ldc+j] = T(s)
		}
	}
}

// plainArith is the arithmetic of T itself, for a nil format: IEEE
// float64, or float32 reached by rounding the exact result to odd in
// float64 first (so that it is rounded once).
type plainArith[T Float] struct{}

func (plainArith[T]) round(hi, lo float64) float64 {
	if _, wide := any(T(0)).(float64); wide {
		return hi
	}
	return float64(float32(toOdd(hi, lo)))
}

func (r plainArith[T]) Add64(x, y float64) float64 {
	t := x + y // TwoSum: x + y == t + e exactly
	bb := t - x
	return r.round(t, (x-(t-bb))+(y-bb))
}

func (r plainArith[T]) Mul64(x, y float64) float64 {
	p := x * y
	return r.round(p, math.FMA(x, y, -p))
}
