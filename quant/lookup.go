package quant

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
)

// A lookup is a format rounded by search among its sorted values: a
// lookup table (table(...), table:FILE) or a registered Codec. Both are
// built once, when first parsed, and interned by name, so that equal
// names give the same pointer and Formats compare equal with ==.
//
// Values are ordered as float keys: -0 sits just below +0 and counts as a
// distinct value when a format has both (as IEEE floats do). A finite x
// rounds to one of the two values that bracket it. Where the rounding
// changes between neighbouring values is decided when the format is built
// (see newTableLookup and newCodecLookup), then kept as the smallest
// float32 and the smallest float64 that round to the upper value.
type lookup struct {
	name  string
	bits  int
	dec   []float64 // value of every code
	codec Codec     // nil for a table

	vals []float64 // distinct non-NaN values, ascending (as keys)
	out  []float32 // float32(vals[i])
	code []uint32  // the code Encode gives for vals[i]

	near      locator   // thresholds: Round(x) = vals[near.count(key32(x))]
	fast      fastTable // the same thresholds, for RoundSlice
	near64    []uint64  // the same for float64 keys
	below     locator   // key32 of the smallest float32 >= vals[i]
	fastBelow fastTable // the same keys, for RoundSliceStochastic

	nan, posInf, negInf special // results for non-finite inputs
}

// special is what a non-finite input rounds to.
type special struct {
	code uint32
	val  float64
}

func (t *lookup) String() string { return t.name }

// Bits returns the width of a code.
func (t *lookup) Bits() int { return t.bits }

// Decode returns the value of code c (only its low Bits() bits are used).
func (t *lookup) Decode(c uint32) float64 { return t.dec[c&(1<<t.bits-1)] }

func (t *lookup) special(b uint32) special {
	switch {
	case b&0x7fffffff > 0x7f800000:
		return t.nan
	case b>>31 == 0:
		return t.posInf
	}
	return t.negInf
}

func (t *lookup) special64(x float64) special {
	switch {
	case x != x:
		return t.nan
	case x > 0:
		return t.posInf
	}
	return t.negInf
}

// Encode returns the code of Round(x).
func (t *lookup) Encode(x float32) uint32 {
	b := math.Float32bits(x)
	if b&0x7fffffff >= 0x7f800000 {
		return t.special(b).code
	}
	return t.code[t.near.count(key32(b))]
}

// Encode64 returns the code of Round64(x).
func (t *lookup) Encode64(x float64) uint32 {
	if math.IsInf(x, 0) || x != x {
		return t.special64(x).code
	}
	return t.code[t.index64(x)]
}

func (t *lookup) index64(x float64) int {
	k := key64(math.Float64bits(x))
	return sort.Search(len(t.near64), func(i int) bool { return t.near64[i] > k })
}

// Round returns x rounded to the format, as a float32.
func (t *lookup) Round(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7fffffff >= 0x7f800000 {
		return float32(t.special(b).val)
	}
	return t.out[t.near.count(key32(b))]
}

// Round64 returns x rounded to the format, once.
func (t *lookup) Round64(x float64) float64 {
	if math.IsInf(x, 0) || x != x {
		return t.special64(x).val
	}
	return t.vals[t.index64(x)]
}

// upperWins reports whether a tie between the values of codes lo and hi
// goes to hi: to the even code, and between codes of the same parity to
// the smaller.
func upperWins(lo, hi uint32) bool {
	if lo&1 != hi&1 {
		return hi&1 == 0
	}
	return hi < lo
}

// newLookup sorts the values of dec (one per code) and fills every field
// but the thresholds and the non-finite results. A value several codes
// share is given the code a tie would choose among them.
// rank[c] is the index in vals of code c's value, -1 for NaN codes.
func newLookup(name string, bits int, dec []float64) (t *lookup, rank []int32, err error) {
	t = &lookup{name: name, bits: bits, dec: dec}
	var codes []uint32
	for c, v := range dec {
		if !math.IsNaN(v) {
			codes = append(codes, uint32(c))
		}
	}
	if len(codes) == 0 {
		return nil, nil, FormatError(name + ": no code has a value (every code decodes to NaN)")
	}
	k := func(c uint32) uint64 { return key64(math.Float64bits(dec[c])) }
	slices.SortFunc(codes, func(a, b uint32) int {
		switch ka, kb := k(a), k(b); {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		case a == b:
			return 0
		case upperWins(a, b): // b is preferred: it comes first
			return 1
		}
		return -1
	})
	rank = make([]int32, len(dec))
	for i := range rank {
		rank[i] = -1
	}
	for i, c := range codes {
		if i > 0 && k(c) == k(codes[i-1]) {
			rank[c] = int32(len(t.vals) - 1)
			continue
		}
		rank[c] = int32(len(t.vals))
		t.vals = append(t.vals, dec[c])
		t.out = append(t.out, float32(dec[c]))
		t.code = append(t.code, c)
	}
	keys := make([]uint32, len(t.vals))
	for i, v := range t.vals {
		keys[i] = ceilKey32(v)
	}
	t.below, t.fastBelow = newLocator(keys), newFastTable(keys)
	return t, rank, nil
}

// ceilKey32 returns the key of the smallest float32 >= v.
func ceilKey32(v float64) uint32 {
	k := key32(math.Float32bits(float32(v)))
	if key64(math.Float64bits(float64(unkey32(k)))) < key64(math.Float64bits(v)) {
		k++
	}
	return k
}

// midpoint returns (a+b)/2 exactly.
func midpoint(a, b float64) *big.Float {
	x := new(big.Float).SetPrec(2200).SetFloat64(a)
	y := new(big.Float).SetPrec(2200).SetFloat64(b)
	x.Add(x, y)
	return x.SetMantExp(x, -1)
}

// cmpMid compares x with the exact midpoint m.
func cmpMid(x float64, m *big.Float) int { return new(big.Float).SetFloat64(x).Cmp(m) }

// nearestThresholds returns, for the gap between a < b (as keys) whose
// tie goes up if up, the key of the smallest float32 and of the smallest
// float64 that round to b under round-to-nearest. Between -0 and +0 the
// sign decides.
func nearestThresholds(a, b float64, up bool) (uint32, uint64) {
	switch {
	case a == 0 && b == 0:
		return key32(0), key64(0)
	case math.IsInf(b, 1):
		return key32(math.Float32bits(float32(b))), key64(math.Float64bits(b))
	case math.IsInf(a, -1):
		return key32(math.Float32bits(float32(a))) + 1, key64(math.Float64bits(a)) + 1
	}
	m := midpoint(a, b)
	mid, _ := m.Float64()
	k32 := key32(math.Float32bits(float32(mid)))
	k32 = adjust(k32, func(k uint32) int { return cmpMid(float64(unkey32(k)), m) }, up)
	k64 := key64(math.Float64bits(mid))
	k64 = adjust(k64, func(k uint64) int { return cmpMid(unkey64(k), m) }, up)
	return k32, k64
}

// adjust moves k, a key within an ulp or two of the midpoint, to the
// smallest key above it (or at it, when ties go up). cmp compares a key's
// value with the midpoint; a finite midpoint keeps keys off the NaNs.
func adjust[K uint32 | uint64](k K, cmp func(K) int, up bool) K {
	for cmp(k) < 0 {
		k++
	}
	for cmp(k-1) >= 0 {
		k--
	}
	for !up && cmp(k) == 0 {
		k++
	}
	return k
}

// newTableLookup builds the lookup of a table: round to nearest, a tie to
// the even code (the smaller if both are even or both odd), saturating.
func newTableLookup(name string, bits int, dec []float64) (*lookup, error) {
	t, _, err := newLookup(name, bits, dec)
	if err != nil {
		return nil, err
	}
	n := len(t.vals)
	k32, k64 := make([]uint32, n-1), make([]uint64, n-1)
	for i := range n - 1 {
		k32[i], k64[i] = nearestThresholds(t.vals[i], t.vals[i+1], upperWins(t.code[i], t.code[i+1]))
	}
	t.near, t.near64, t.fast = newLocator(k32), k64, newFastTable(k32)
	t.posInf = special{t.code[n-1], t.vals[n-1]}
	t.negInf = special{t.code[0], t.vals[0]}
	t.nan = special{val: math.NaN()}
	for c, v := range dec {
		if math.IsNaN(v) {
			t.nan.code = uint32(c)
			return t, nil
		}
	}
	return nil, FormatError(fmt.Sprintf("%s: NaN inputs have no code: every one of its %d codes has a value (add nan to the table, which needs a code of its own, or leave a code unused)", name, len(dec)))
}

// firstTrue returns the smallest k in [lo, hi] with pred(k), or hi+1 if
// there is none; pred must be monotone.
func firstTrue[K uint32 | uint64](lo, hi K, pred func(K) bool) K {
	end := hi + 1
	for lo < end {
		h := lo + (end-lo)/2
		if pred(h) {
			end = h
		} else {
			lo = h + 1
		}
	}
	return lo
}

// newCodecLookup builds the lookup of a codec of at most 16 bits from its
// Encode and Decode. Encode is the codec's rounding rule: the threshold
// between neighbouring values is the smallest float32 that Encode sends to
// the upper one, found by bisection (Encode must be monotone). Round and
// the slice kernels are then exactly float32(Decode(Encode(x))).
//
// For float64 inputs (Round64) a codec that implements Encoder64 is
// bisected the same way. Otherwise the float32 threshold t and the float32
// p below it fix every float64 but those strictly between p and t; those
// round by the midpoint of the two values if it lies in [p, t] (the codec
// rounds to nearest there), and otherwise, the codec having its own tie
// point (as posits do near minpos and maxpos), by taking the tie point to
// be p if a tie goes down (to the even code, then the smaller), t if it
// goes up.
func newCodecLookup(c Codec) (*lookup, error) {
	name, bits := c.String(), c.Bits()
	dec := make([]float64, 1<<bits)
	for i := range dec {
		dec[i] = c.Decode(uint32(i))
	}
	t, rank, err := newLookup(name, bits, dec)
	if err != nil {
		return nil, err
	}
	t.codec = c // for ArithmeticOf
	mask := uint32(len(dec) - 1)
	enc := func(x float32) int32 { return rank[c.Encode(x)&mask] }
	n := len(t.vals)
	lo32, hi32 := key32(math.Float32bits(-math.MaxFloat32)), key32(math.Float32bits(math.MaxFloat32))
	k32, k64 := make([]uint32, n-1), make([]uint64, n-1)
	e64, has64 := c.(Encoder64)
	lo64, hi64 := key64(math.Float64bits(-math.MaxFloat64)), key64(math.Float64bits(math.MaxFloat64))
	for i := range n - 1 {
		k32[i] = firstTrue(lo32, hi32, func(k uint32) bool { return enc(unkey32(k)) > int32(i) })
		if i > 0 && k32[i] < k32[i-1] {
			return nil, FormatError(fmt.Sprintf("%s: Encode is not monotone near %g", name, t.vals[i]))
		}
		if has64 {
			k64[i] = firstTrue(lo64, hi64, func(k uint64) bool { return rank[e64.Encode64(unkey64(k))&mask] > int32(i) })
			continue
		}
		k64[i] = codecThreshold64(t, i, k32[i])
	}
	t.near, t.near64, t.fast = newLocator(k32), k64, newFastTable(k32)
	for i, v := range t.vals {
		if f := float32(v); float64(f) == v {
			if got := enc(f); got != int32(i) {
				return nil, FormatError(fmt.Sprintf("%s: Encode(%g) = %#x, not the code of %g (%#x)", name, f, c.Encode(f)&mask, v, t.code[i]))
			}
		}
	}
	sp := func(x float32) special {
		cd := c.Encode(x) & mask
		return special{cd, dec[cd]}
	}
	t.nan, t.posInf, t.negInf = sp(float32(math.NaN())), sp(float32(math.Inf(1))), sp(float32(math.Inf(-1)))
	return t, nil
}

// codecThreshold64 returns the float64 threshold of gap i of a codec
// without Encode64, whose float32 threshold has key k (see newCodecLookup).
func codecThreshold64(t *lookup, i int, k uint32) uint64 {
	a, b := t.vals[i], t.vals[i+1]
	p, q := float64(unkey32(k-1)), float64(unkey32(k))
	up := upperWins(t.code[i], t.code[i+1])
	if !math.IsInf(a, 0) && !math.IsInf(b, 0) && !(a == 0 && b == 0) && !math.IsNaN(p) && !math.IsNaN(q) {
		m := midpoint(a, b)
		cp, cq := cmpMid(p, m), cmpMid(q, m)
		switch {
		case cp < 0 && cq > 0:
			_, k64 := nearestThresholds(a, b, up)
			return k64
		case cq == 0:
			return key64(math.Float64bits(q))
		case cp == 0:
			return key64(math.Float64bits(p)) + 1
		}
	}
	if up || math.IsNaN(p) {
		return key64(math.Float64bits(q))
	}
	return key64(math.Float64bits(p)) + 1
}
