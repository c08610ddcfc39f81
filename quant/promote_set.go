package quant

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// maxEnumBits is the widest format whose value set is found by decoding
// every code; wider ones are described by their parameters.
const maxEnumBits = 16

// valueSet is the exact set of values of a format: its finite nonzero
// values, either listed (formats of at most maxEnumBits bits, by
// enumeration) or as binades (wider posits, floats and fixed-point formats,
// from their parameters), and which special values it has. NaN stands for
// every NaN code and for NaR.
type valueSet struct {
	name                                  string
	nan, posInf, negInf, posZero, negZero bool
	// vals holds the finite nonzero values of an enumerated format in
	// increasing order, each once.
	vals []float64
	// pos and neg hold the binades of a wider format by exponent; sorted
	// lists the exponents in increasing order.
	pos, neg map[int]binade
	exps     []int
}

// binade is the run of values 2^exp·(1 + i·2^-prec), 0 <= i < count, of
// one sign: every value of the format in [2^exp, 2^(exp+1)) of that sign.
type binade struct{ exp, prec, count int }

// value returns the i-th value of the binade, as a magnitude.
func (b binade) value(i int) float64 {
	return math.Ldexp(1, b.exp) + math.Ldexp(float64(i), b.exp-b.prec)
}

// sets caches the value sets by canonical name: they are a property of
// the formats alone.
var sets sync.Map // string → *valueSet

// setOf returns the value set of f.
func setOf(f Format) (*valueSet, error) {
	name := f.String()
	if s, ok := sets.Load(name); ok {
		return s.(*valueSet), nil
	}
	s, err := buildSet(f)
	if err != nil {
		return nil, err
	}
	s.name = name
	v, _ := sets.LoadOrStore(name, s)
	return v.(*valueSet), nil
}

func buildSet(f Format) (*valueSet, error) {
	if f.Bits() <= maxEnumBits {
		return enumerate(f), nil
	}
	switch f := f.(type) {
	case Posit:
		return positSet(f), nil
	case Float:
		return floatSet(f), nil
	case Fixed:
		return fixedSet(f), nil
	}
	return nil, fmt.Errorf("quant: %v has %d bits and is not a posit, float or fixed-point format: its value set is not known", f, f.Bits())
}

// enumerate decodes every code of f.
func enumerate(f Format) *valueSet {
	s := &valueSet{}
	for c := range uint32(1) << f.Bits() {
		v := f.Decode(c)
		switch {
		case math.IsNaN(v):
			s.nan = true
		case math.IsInf(v, 1):
			s.posInf = true
		case math.IsInf(v, -1):
			s.negInf = true
		case v == 0 && math.Signbit(v):
			s.negZero = true
		case v == 0:
			s.posZero = true
		default:
			s.vals = append(s.vals, v)
		}
	}
	slices.Sort(s.vals)
	s.vals = slices.Compact(s.vals)
	if s.vals == nil {
		s.vals = []float64{} // enumerated, with no finite nonzero value
	}
	return s
}

// symmetric returns a binade set with the same binades for both signs.
func symmetric(bs []binade) *valueSet {
	s := &valueSet{pos: map[int]binade{}, neg: map[int]binade{}}
	for _, b := range bs {
		s.pos[b.exp], s.neg[b.exp] = b, b
		s.exps = append(s.exps, b.exp)
	}
	slices.Sort(s.exps)
	return s
}

// positSet describes posit(n,es,scale=k) by its regimes: at regime k the
// regime takes min(k+2 or 1-k, n-1) bits, the exponent the next es bits
// (missing low bits are zero) and the fraction what is left.
func positSet(p Posit) *valueSet {
	n, es := int(p.n), int(p.es)
	var bs []binade
	for k := -(n - 2); k <= n-2; k++ {
		r := k + 2
		if k < 0 {
			r = 1 - k
		}
		r = min(r, n-1)
		rem := n - 1 - r
		esAvail := min(es, rem)
		fb := max(0, rem-es)
		for e := 0; e < 1<<es; e += 1 << (es - esAvail) {
			bs = append(bs, binade{exp: k<<es + e - int(p.scale), prec: fb, count: 1 << fb})
		}
	}
	s := symmetric(bs)
	s.nan, s.posZero = true, true
	return s
}

// floatSet describes float(e,m) by its subnormal and normal binades.
func floatSet(f Float) *valueSet {
	m := int(f.m)
	var bs []binade
	if !f.noSub {
		for t := range m {
			bs = append(bs, binade{exp: f.emin() - m + t, prec: t, count: 1 << t})
		}
	}
	top := int(f.maxMag() >> f.m)
	for field := 1; field <= top; field++ {
		c := 1 << m
		if field == top {
			c = int(f.maxMag()&(1<<f.m-1)) + 1
		}
		bs = append(bs, binade{exp: field - int(f.bias), prec: m, count: c})
	}
	s := symmetric(bs)
	s.nan = f.hasNaN()
	s.posInf = f.special == SpecialsIEEE
	s.negInf = s.posInf
	s.posZero = true
	// FNUZ's 1000…0 is NaN, but without subnormals the other codes with a
	// zero exponent field still decode to -0.
	s.negZero = f.special != SpecialsFNUZ || (f.noSub && f.m > 0)
	return s
}

// fixedSet describes fixed(wl,fl): the integers 1 … 2^(wl-1)-1 times
// 2^-fl of both signs, and -2^(wl-1)·2^-fl.
func fixedSet(x Fixed) *valueSet {
	wl, fl := int(x.wl), int(x.fl)
	var bs []binade
	for t := 0; t <= wl-2; t++ {
		bs = append(bs, binade{exp: t - fl, prec: t, count: 1 << t})
	}
	s := symmetric(bs)
	low := binade{exp: wl - 1 - fl, prec: 0, count: 1}
	s.neg[low.exp] = low
	s.exps = append(s.exps, low.exp)
	s.posZero = true
	return s
}

// has reports whether the finite nonzero v is a value of s.
func (s *valueSet) has(v float64) bool {
	if s.vals != nil {
		_, ok := slices.BinarySearch(s.vals, v)
		return ok
	}
	bs := s.pos
	if v < 0 {
		bs = s.neg
	}
	frac, e := math.Frexp(math.Abs(v)) // |v| = frac·2^e, frac in [0.5, 1)
	b, ok := bs[e-1]
	if !ok {
		return false
	}
	i := math.Ldexp(frac, b.prec+1) - math.Ldexp(1, b.prec) // exact: same binade
	return i == math.Trunc(i) && i < float64(b.count)
}

// lacks returns the value of a of smallest magnitude that b lacks (the
// positive one first at equal magnitude; zeros first, then finite values,
// then infinities, then NaN), and whether there is one: a ≤ b exactly
// when there is none.
func lacks(a, b *valueSet) (float64, bool) {
	switch {
	case a.posZero && !b.posZero:
		return 0, true
	case a.negZero && !b.negZero:
		return math.Copysign(0, -1), true
	}
	if v, ok := lacksFinite(a, b); ok {
		return v, true
	}
	switch {
	case a.negInf && !b.negInf:
		return math.Inf(-1), true
	case a.posInf && !b.posInf:
		return math.Inf(1), true
	case a.nan && !b.nan:
		return math.NaN(), true
	}
	return 0, false
}

func lacksFinite(a, b *valueSet) (float64, bool) {
	if a.vals != nil {
		// Walk outwards from zero, the positive value first at a tie.
		j := sortSearchPos(a.vals)
		i := j - 1
		for i >= 0 || j < len(a.vals) {
			var v float64
			if j >= len(a.vals) || (i >= 0 && -a.vals[i] < a.vals[j]) {
				v, i = a.vals[i], i-1
			} else {
				v, j = a.vals[j], j+1
			}
			if !b.has(v) {
				return v, true
			}
		}
		return 0, false
	}
	for _, e := range a.exps {
		nb, hasN := a.neg[e]
		pb, hasP := a.pos[e]
		var nv, pv float64
		var nok, pok bool
		if hasN {
			nv, nok = lacksInBinade(nb, b, b.neg, true)
		}
		if hasP {
			pv, pok = lacksInBinade(pb, b, b.pos, false)
		}
		switch {
		case pok && (!nok || pv <= nv):
			return pv, true
		case nok:
			return -nv, true
		}
	}
	return 0, false
}

// lacksInBinade returns the smallest magnitude of the binade ab that b
// lacks; bs are b's binades of the same sign, if b has binades, and neg
// says which sign that is.
func lacksInBinade(ab binade, b *valueSet, bs map[int]binade, neg bool) (float64, bool) {
	if b.vals != nil {
		// b has at most 2^16 values: the walk stops within as many steps.
		for i := range ab.count {
			v := ab.value(i)
			if neg {
				v = -v
			}
			if !b.has(v) {
				return math.Abs(v), true
			}
		}
		return 0, false
	}
	bb, ok := bs[ab.exp]
	switch {
	case !ok || bb.count == 0:
		return ab.value(0), ab.count > 0
	case bb.prec < ab.prec:
		return ab.value(1), ab.count > 1 // i=0 is 2^exp, which b has
	}
	d := bb.prec - ab.prec
	i0 := (bb.count + 1<<d - 1) >> d // the first i with i·2^d >= b's count
	return ab.value(i0), i0 < ab.count
}

// sortSearchPos returns the index of the first positive value of the
// sorted vals.
func sortSearchPos(vals []float64) int {
	i, _ := slices.BinarySearchFunc(vals, 0.0, func(v, t float64) int {
		if v <= t {
			return -1
		}
		return 1
	})
	return i
}
