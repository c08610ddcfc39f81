package quant

import "math/bits"

// A Quire is an exact accumulator for sums of products of posits of one
// format, as in the posit standard: products and posits are added without
// rounding, and the sum is rounded once, by Round.
//
// The quire is a two's-complement fixed-point number whose least
// significant bit is below minpos² and whose range reaches past maxpos² by
// 31 carry bits, so that at least 2^31 products of maxpos² (or, for an
// exponent bias |k| > maxScale, of the largest posit) add up without
// overflow. For posit(n, es) with no bias that is a sign bit, 31 carry bits
// and the 4·(n-2)·2^es + 1 bits from minpos² to maxpos² — for es = 2, one
// more than the standard's 16n — stored, with 62 low guard bits that let
// operands enter without shifting, in whole 64-bit words: 3 words for posit(8,1) and
// posit(8,2), 4 for posit(16,1), 5 for posit(16,2). Every posit(n ≤ 32,
// es ≤ 4) with any exponent bias has a quire (at most 33 words).
//
// Quires come from Posit.NewQuire; the zero Quire has no format and must
// not be used. A Quire is not safe for concurrent use; give each goroutine
// its own.
type Quire struct {
	p   Posit
	lsb int // binary exponent of bit 0 of w
	nw  int // words in use
	nar bool
	bt  []uint64 // p.binTable(), once product has needed it
	w   [quireWords]uint64
}

// quireWords is the most words any format's quire needs: at most
// 4·maxScale, or 3·maxScale + |bias| <= 2·maxScale + maxFloat64Scale, bits
// of range, 62 guard bits and 33 carry and sign bits.
const quireWords = (max(4*((MaxPositBits-2)<<MaxPositES), 2*((MaxPositBits-2)<<MaxPositES)+maxFloat64Scale) + 62 + 33 + 63) / 64

// NewQuire returns an empty quire for p.
func (p Posit) NewQuire() *Quire {
	q := new(Quire)
	q.init(p)
	return q
}

func (q *Quire) init(p Posit) {
	m, s := p.MaxScale(), int(p.scale)
	lo := min(-2*m-2*s, -m-s) // exponent of minpos² or of minpos
	hi := max(2*m-2*s, m-s)   // exponent of maxpos² or of maxpos
	q.p = p
	q.lsb = lo - 62
	q.nw = (hi - q.lsb + 33 + 63) / 64
}

// Format returns the posit format of the quire.
func (q *Quire) Format() Posit { return q.p }

// Bits returns the width of the quire in bits, a multiple of 64.
func (q *Quire) Bits() int { return 64 * q.nw }

// Reset sets the quire to zero.
func (q *Quire) Reset() {
	clear(q.w[:q.nw])
	q.nar = false
}

// IsNaR reports whether a NaR has entered the quire since the last Reset.
func (q *Quire) IsNaR() bool { return q.nar }

// AddProduct adds a·b exactly. A NaR operand makes the quire NaR.
func (q *Quire) AddProduct(a, b uint32) { q.product(a, b, false) }

// SubProduct subtracts a·b exactly. A NaR operand makes the quire NaR.
func (q *Quire) SubProduct(a, b uint32) { q.product(a, b, true) }

// Add adds the posit c exactly.
func (q *Quire) Add(c uint32) { q.posit(c, false) }

// Sub subtracts the posit c exactly.
func (q *Quire) Sub(c uint32) { q.posit(c, true) }

// AddDot adds the products a[i]·b[i] exactly. It panics if the lengths
// differ.
func (q *Quire) AddDot(a, b []uint32) {
	if len(a) != len(b) {
		panic(errLength)
	}
	q.dot(a, b)
}

// AddDotFloat32 adds the products a[i]·b[i] exactly, where a and b hold
// values of the quire's format as float32, such as the output of its
// RoundSlice. ±Inf and NaN give NaR. Any other input that is not a value
// of the format is either taken exactly as it is or first rounded to the
// format, whichever the format's fast path allows; round it first if that
// matters. It panics if the lengths differ.
func (q *Quire) AddDotFloat32(a, b []float32) {
	if len(a) != len(b) {
		panic(errLength)
	}
	q.dotFloat32(a, b)
}

// Round returns the sum rounded to the nearest posit, ties to even on the
// bit pattern: NaR if a NaR entered, 0 only for an exactly zero sum,
// ±maxpos or ±minpos if the sum lies beyond them. The quire is unchanged.
func (q *Quire) Round() uint32 {
	if q.nar {
		return q.p.NaR()
	}
	w := q.w[:q.nw]
	z := 0 // lowest nonzero word
	for z < len(w) && w[z] == 0 {
		z++
	}
	if z == len(w) {
		return 0
	}
	// The magnitude of a negative sum is ^w + 1: zero below word z,
	// -w[z] at z and ^w[i] above.
	neg := int64(w[len(w)-1]) < 0
	mag := func(i int) uint64 {
		switch {
		case !neg:
			return w[i]
		case i < z:
			return 0
		case i == z:
			return -w[i]
		}
		return ^w[i]
	}
	top := len(w) - 1
	for mag(top) == 0 {
		top--
	}
	var lo uint64
	if top > 0 {
		lo = mag(top - 1)
	}
	return q.p.roundWide(neg, q.lsb+64*(top-1), mag(top), lo, z < top-1)
}

// Dot returns the dot product of a and b, the posits a[i]·b[i] summed
// exactly in a quire and rounded once. It panics if the lengths differ. It
// does not allocate, apart from lookup tables built once per format (up to
// 512 KiB each for 16-bit formats).
func (p Posit) Dot(a, b []uint32) uint32 {
	if len(a) != len(b) {
		panic(errLength)
	}
	var q Quire
	q.init(p)
	q.dot(a, b)
	return q.Round()
}

// DotFloat32 is Dot for values of p held as float32, such as the output
// of p.RoundSlice: it returns Σ a[i]·b[i], summed exactly and rounded once
// to p, as a float32 (NaN for NaR; a value beyond float32's range
// saturates as in Round). See Quire.AddDotFloat32 for inputs that are not
// values of p. It panics if the lengths differ. It allocates only as Dot
// does.
//
// Each call converts every input; when the operands of many dot products
// are reused, as in a matrix product, encoding them once and calling Dot is
// faster.
func (p Posit) DotFloat32(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(errLength)
	}
	var q Quire
	q.init(p)
	q.dotFloat32(a, b)
	return toFloat32Sat(p.Decode(q.Round()))
}

// product adds (or, if sub, subtracts) a·b.
func (q *Quire) product(a, b uint32, sub bool) {
	p := q.p
	m, nar := p.Mask(), p.NaR()
	a, b = a&m, b&m
	switch {
	case a == nar || b == nar:
		q.nar = true
		return
	case a == 0 || b == 0:
		return
	}
	if p.n <= maxTableBits {
		// Table entries (see binTable) save decoding: the product
		// m·m'·2^(e+e'-2M-30) has |m·m'| < 2^32.
		if q.bt == nil {
			q.bt = p.binTable()
		}
		u, v := q.bt[a], q.bt[b]
		m := int64(int32(u)) * int64(int32(v))
		if sub {
			m = -m
		}
		pos := int(u>>32+v>>32) - 2*p.MaxScale() - 30 - 2*int(p.scale) - q.lsb
		q.addAt(pos, uint64(max(m, -m)), m < 0)
		return
	}
	na, sa, ga := p.decodeParts(a)
	nb, sb, gb := p.decodeParts(b)
	// The significands have at most 30 significant bits: as 32-bit
	// integers their product is exact in 64 bits, with bit 0 of weight
	// 2^(sa+sb-62), no lower than the quire's bit 0.
	q.addAt(sa+sb-62-q.lsb, (ga>>32)*(gb>>32), na != nb != sub)
}

// posit adds (or, if sub, subtracts) the posit c.
func (q *Quire) posit(c uint32, sub bool) {
	p := q.p
	c &= p.Mask()
	switch c {
	case p.NaR():
		q.nar = true
		return
	case 0:
		return
	}
	neg, s, g := p.decodeParts(c)
	q.addAt(s-31-q.lsb, g>>32, neg != sub)
}

// addAt adds m·2^pos to the quire's integer, or subtracts it if neg.
func (q *Quire) addAt(pos int, m uint64, neg bool) {
	w := q.w[:q.nw]
	i, off := pos>>6, uint(pos&63)
	lo, hi := m<<off, m>>(64-off)
	var c uint64
	if !neg {
		w[i], c = bits.Add64(w[i], lo, 0)
		for i++; c|hi != 0 && i < len(w); i++ {
			w[i], c = bits.Add64(w[i], hi, c)
			hi = 0
		}
		return
	}
	w[i], c = bits.Sub64(w[i], lo, 0)
	for i++; c|hi != 0 && i < len(w); i++ {
		w[i], c = bits.Sub64(w[i], hi, c)
		hi = 0
	}
}

// addInt128 adds the signed 128-bit integer hi:lo times 2^pos.
func (q *Quire) addInt128(pos int, hi, lo uint64) {
	neg := int64(hi) < 0
	if neg {
		var b uint64
		lo, b = bits.Sub64(0, lo, 0)
		hi = -hi - b
	}
	q.addAt(pos, lo, neg)
	if hi != 0 {
		q.addAt(pos+64, hi, neg)
	}
}
