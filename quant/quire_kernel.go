package quant

import (
	"math"
	"math/bits"
	"sync"
)

// Quire kernels. Formats with maxScale M <= 31 — among them every posit(8,
// es<=2) and posit(16, es<=1) — take the fastest path: each value is an
// integer multiple V of minpos with |V| <= 2^(2M), so a product is an
// integer multiple of minpos² and a block of products sums exactly in an
// int64 (if 4M <= 52) or a 128-bit pair, which then enters the quire once
// per block. Other formats up to 16 bits sum products of 16-bit
// significands into int64 bins, one per 16 binary places, with no carries
// to propagate; wider formats add each product to the quire words.

// fixedFits reports whether p's values as multiples of minpos fit an int64.
func (p Posit) fixedFits() bool { return p.MaxScale() <= 31 }

// fixed returns the value of code c, not NaR, as a multiple of minpos.
func (p Posit) fixed(c uint32) int64 {
	if c&p.Mask() == 0 {
		return 0
	}
	neg, s, g := p.decodeParts(c)
	// The unbiased exponent s+scale is in [-M, M]; every posit is a
	// multiple of minpos, so the shift drops only zeros.
	v := int64(g >> uint(63-s-int(p.scale)-p.MaxScale()))
	if neg {
		v = -v
	}
	return v
}

// maxTableBits is the widest format whose codes are looked up in a table
// (8·2^16 bytes for n = 16) rather than decoded.
const maxTableBits = 16

// fixedTable holds V for every code of an unbiased posit(n, es): the
// exponent bias moves minpos with the values, so one table serves all
// biases.
type fixedTable struct {
	once sync.Once
	v    []int64
}

// fixedTables are built on first use and never change afterwards.
var fixedTables [maxTableBits + 1][MaxPositES + 1]fixedTable

// table returns V for every code of p (0 for NaR), or nil if p is too
// wide.
func (p Posit) table() []int64 {
	if p.n > maxTableBits || !p.fixedFits() {
		return nil
	}
	t := &fixedTables[p.n][p.es]
	t.once.Do(func() {
		u := Posit{n: p.n, es: p.es}
		t.v = make([]int64, 1<<p.n)
		for c := range uint32(1) << p.n {
			if c != u.NaR() {
				t.v[c] = u.fixed(c)
			}
		}
	})
	return t.v
}

// blockLen returns how many products of magnitude at most 2^(4M) a block may
// sum without overflow: in an int64 if wide is false, else in 128 bits.
func blockLen(m int, wide bool) int {
	if wide {
		return 1 << min(126-4*m, 30)
	}
	return 1 << min(62-4*m, 30)
}

func (q *Quire) dot(a, b []uint32) {
	p := q.p
	if !p.fixedFits() {
		if t := p.binTable(); t != nil {
			q.dotBins(a, b, t)
			return
		}
		for i, x := range a {
			q.product(x, b[i], false)
		}
		return
	}
	m := p.MaxScale()
	pos := -2*m - 2*int(p.scale) - q.lsb // quire bit of minpos²
	wide := 4*m > 52
	mask, nar := p.Mask(), p.NaR()
	t := p.table()
	for len(a) > 0 {
		k := min(len(a), blockLen(m, wide))
		var hi, lo uint64
		var isNaR bool
		switch {
		case t != nil && !wide:
			var s int64
			s, isNaR = dotTable64(t, a[:k], b[:k], mask, nar)
			hi, lo = uint64(s>>63), uint64(s)
		case t != nil:
			hi, lo, isNaR = dotTable128(t, a[:k], b[:k], mask, nar)
		default:
			hi, lo, isNaR = p.dotDecode128(a[:k], b[:k])
		}
		if isNaR {
			q.nar = true
			return
		}
		q.addInt128(pos, hi, lo)
		a, b = a[k:], b[k:]
	}
}

func dotTable64(t []int64, a, b []uint32, mask, nar uint32) (int64, bool) {
	b = b[:len(a)]
	var s int64
	for i, x := range a {
		x, y := x&mask, b[i]&mask
		if x == nar || y == nar {
			return 0, true
		}
		s += t[x] * t[y]
	}
	return s, false
}

func dotTable128(t []int64, a, b []uint32, mask, nar uint32) (hi, lo uint64, isNaR bool) {
	b = b[:len(a)]
	for i, x := range a {
		x, y := x&mask, b[i]&mask
		if x == nar || y == nar {
			return 0, 0, true
		}
		ph, pl := mul128(t[x], t[y])
		var c uint64
		lo, c = bits.Add64(lo, pl, 0)
		hi += ph + c
	}
	return hi, lo, false
}

func (p Posit) dotDecode128(a, b []uint32) (hi, lo uint64, isNaR bool) {
	b = b[:len(a)]
	mask, nar := p.Mask(), p.NaR()
	for i, x := range a {
		x, y := x&mask, b[i]&mask
		if x == nar || y == nar {
			return 0, 0, true
		}
		ph, pl := mul128(p.fixed(x), p.fixed(y))
		var c uint64
		lo, c = bits.Add64(lo, pl, 0)
		hi += ph + c
	}
	return hi, lo, false
}

// mul128 returns the signed 128-bit product x·y.
func mul128(x, y int64) (hi, lo uint64) {
	hi, lo = bits.Mul64(uint64(x), uint64(y))
	hi -= uint64(x>>63)&uint64(y) + uint64(y>>63)&uint64(x)
	return hi, lo
}

// dotFloat32 is dot for values held as float32.
func (q *Quire) dotFloat32(a, b []float32) {
	p := q.p
	if !p.fixedFits() {
		if t := p.binTable(); t != nil {
			q.dotBinsFloat32(a, b, t)
			return
		}
		for i, x := range a {
			q.product(p.Encode(x), p.Encode(b[i]), false)
		}
		return
	}
	m := p.MaxScale()
	pos := -2*m - 2*int(p.scale) - q.lsb
	wide := 4*m > 52
	cv := fixedConv{p: p, mul: math.Ldexp(1, m+int(p.scale)), max: 1 << (2 * m)}
	for len(a) > 0 {
		k := min(len(a), blockLen(m, wide))
		var hi, lo uint64
		var isNaR bool
		if wide {
			hi, lo, isNaR = cv.dot128(a[:k], b[:k])
		} else {
			var s int64
			s, isNaR = cv.dot64(a[:k], b[:k])
			hi, lo = uint64(s>>63), uint64(s)
		}
		if isNaR {
			q.nar = true
			return
		}
		q.addInt128(pos, hi, lo)
		a, b = a[k:], b[k:]
	}
}

// fixedConv converts float32 values to multiples of p's minpos.
type fixedConv struct {
	p   Posit
	mul float64 // 1/minpos
	max int64   // maxpos/minpos
}

// of returns x/minpos if that is an integer of magnitude at most
// maxpos/minpos, else x rounded to p first; ok is false for NaR.
func (cv fixedConv) of(x float32) (v int64, ok bool) {
	f := float64(x) * cv.mul // exact unless it underflows or overflows
	v = int64(f)
	if float64(v) == f && v <= cv.max && v >= -cv.max && (v == 0) == (x == 0) {
		return v, true
	}
	return cv.slow(x)
}

func (cv fixedConv) slow(x float32) (int64, bool) {
	c := cv.p.Encode(x)
	if c == cv.p.NaR() {
		return 0, false
	}
	return cv.p.fixed(c), true
}

// dot64 and dot128 inline the common case of of: an exact conversion.
// The check is written out in both loops on purpose: moved into a shared
// inlined helper it measured about 8% slower (BenchmarkQuireDotFloat32).
func (cv fixedConv) dot64(a, b []float32) (int64, bool) {
	b = b[:len(a)]
	mul, max := cv.mul, uint64(cv.max)
	var s int64
	for i, x := range a {
		y := b[i]
		fx, fy := float64(x)*mul, float64(y)*mul
		u, v := int64(fx), int64(fy)
		if float64(u) != fx || float64(v) != fy || uint64(u)+max > 2*max || uint64(v)+max > 2*max ||
			u == 0 && x != 0 || v == 0 && y != 0 {
			var ok1, ok2 bool
			u, ok1 = cv.of(x)
			v, ok2 = cv.of(y)
			if !ok1 || !ok2 {
				return 0, true
			}
		}
		s += u * v
	}
	return s, false
}

func (cv fixedConv) dot128(a, b []float32) (hi, lo uint64, isNaR bool) {
	b = b[:len(a)]
	mul, max := cv.mul, uint64(cv.max)
	for i, x := range a {
		y := b[i]
		fx, fy := float64(x)*mul, float64(y)*mul
		u, v := int64(fx), int64(fy)
		if float64(u) != fx || float64(v) != fy || uint64(u)+max > 2*max || uint64(v)+max > 2*max ||
			u == 0 && x != 0 || v == 0 && y != 0 {
			var ok1, ok2 bool
			u, ok1 = cv.of(x)
			v, ok2 = cv.of(y)
			if !ok1 || !ok2 {
				return 0, 0, true
			}
		}
		ph, pl := mul128(u, v)
		var c uint64
		lo, c = bits.Add64(lo, pl, 0)
		hi += ph + c
	}
	return hi, lo, false
}

// Binned accumulation for formats up to 16 bits. A code's table entry
// holds its significand as a signed integer m, |m| < 2^16, in the low 32
// bits, and e = s+M in [0, 2M] in the high 32 bits, where s is its unbiased
// exponent: the value is m·2^(e-M-15). A product m·m'·2^(e+e'-2M-30) is
// added to bin (e+e')/16 shifted by (e+e')%16: less than 2^47, so 2^16 of
// them fit an int64.
const (
	binShift = 4 // log2 of the places per bin
	binBlock = 1 << 16
	maxBins  = 4*((maxTableBits-2)<<MaxPositES)>>binShift + 1
)

// binTables are built on first use and never change afterwards.
var binTables [maxTableBits + 1][MaxPositES + 1]struct {
	once sync.Once
	v    []uint64
}

// binTable returns the entries of every code of p (0 for NaR), or nil if p
// is too wide.
func (p Posit) binTable() []uint64 {
	if p.n > maxTableBits {
		return nil
	}
	t := &binTables[p.n][p.es]
	t.once.Do(func() {
		u := Posit{n: p.n, es: p.es}
		t.v = make([]uint64, 1<<p.n)
		for c := range uint32(1) << p.n {
			if c == 0 || c == u.NaR() {
				continue
			}
			neg, s, g := u.decodeParts(c)
			m := int32(g >> 48)
			if neg {
				m = -m
			}
			t.v[c] = binEntry(m, s+u.MaxScale())
		}
	})
	return t.v
}

func binEntry(m int32, e int) uint64 { return uint64(uint32(m)) | uint64(e)<<32 }

func (q *Quire) dotBins(a, b []uint32, t []uint64) {
	p := q.p
	mask, nar := p.Mask(), p.NaR()
	var bins [maxBins]int64
	for len(a) > 0 {
		k := min(len(a), binBlock)
		if dotBinsKernel(&bins, t, a[:k], b[:k], mask, nar) {
			q.nar = true
			return
		}
		q.spillBins(&bins)
		a, b = a[k:], b[k:]
	}
}

func dotBinsKernel(bins *[maxBins]int64, t []uint64, a, b []uint32, mask, nar uint32) (isNaR bool) {
	b = b[:len(a)]
	for i, x := range a {
		x, y := x&mask, b[i]&mask
		if x == nar || y == nar {
			return true
		}
		u, v := t[x], t[y]
		e := uint(u>>32 + v>>32)
		bins[e>>binShift] += int64(int32(u)) * int64(int32(v)) << (e & (1<<binShift - 1))
	}
	return false
}

// spillBins adds the bins to the quire and clears them.
func (q *Quire) spillBins(bins *[maxBins]int64) {
	m := q.p.MaxScale()
	pos := -2*m - 30 - 2*int(q.p.scale) - q.lsb // quire bit of 2^(-2M-30)
	for j := range 4*m>>binShift + 1 {
		if v := bins[j]; v != 0 {
			q.addInt128(pos+j<<binShift, uint64(v>>63), uint64(v))
			bins[j] = 0
		}
	}
}

func (q *Quire) dotBinsFloat32(a, b []float32, t []uint64) {
	p := q.p
	bc := binConv{p: p, t: t, s: int(p.scale) + p.MaxScale() - 127, max: 2 * p.MaxScale()}
	var bins [maxBins]int64
	b = b[:len(a)]
	for len(a) > 0 {
		k := min(len(a), binBlock)
		if bc.dot(&bins, a[:k], b[:k]) {
			q.nar = true
			return
		}
		q.spillBins(&bins)
		a, b = a[k:], b[k:]
	}
}

// binConv converts float32 values to bin entries.
type binConv struct {
	p   Posit
	t   []uint64
	s   int // added to a float32's biased exponent gives e
	max int // 2M
}

func (bc binConv) dot(bins *[maxBins]int64, a, b []float32) (isNaR bool) {
	b = b[:len(a)]
	for i, x := range a {
		u, ok1 := binFast(x, bc.s, bc.max)
		v, ok2 := binFast(b[i], bc.s, bc.max)
		if !ok1 || !ok2 {
			u, ok1 = bc.of(x)
			v, ok2 = bc.of(b[i])
			if !ok1 || !ok2 {
				return true
			}
		}
		e := uint(u>>32 + v>>32)
		bins[e>>binShift] += int64(int32(u)) * int64(int32(v)) << (e & (1<<binShift - 1))
	}
	return false
}

// binFast returns the entry of x if x is a normal float32 with at most 16
// significant bits and an exponent in p's range.
func binFast(x float32, s, max int) (uint64, bool) {
	b := math.Float32bits(x)
	ex := int(b >> 23 & 0xff)
	e := ex + s
	m := int32((1<<23 | b&(1<<23-1)) >> 8)
	neg := -int32(b >> 31)
	return uint64(uint32(m^neg-neg)) | uint64(e)<<32, uint(ex-1) < 0xfe && b&0xff == 0 && uint(e) <= uint(max)
}

// of returns the entry of x, or of x rounded to p if binFast fails; ok is
// false for NaR.
func (bc binConv) of(x float32) (uint64, bool) {
	if u, ok := binFast(x, bc.s, bc.max); ok {
		return u, true
	}
	if x == 0 {
		return 0, true
	}
	c := bc.p.Encode(x)
	if c == bc.p.NaR() {
		return 0, false
	}
	return bc.t[c], true
}
