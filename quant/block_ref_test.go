package quant

import (
	"math"
	"math/big"
	"sort"
)

// An independent reference for the OCP MX formats, written from the OCP
// Microscaling Formats (MX) v1.0 specification with math/big. It takes the
// element encodings of the specification (FP8 as OFP8: E4M3 with bias 7,
// no Inf and NaN only at S.1111.111; E5M2 with bias 15 and IEEE Inf/NaN;
// FP6 E2M3 with bias 1, FP6 E3M2 with bias 3 and FP4 E2M1 with bias 1, all
// finite and with subnormals; INT8 as two's complement with an implicit
// 2^-6), their largest normals and emax from its tables, E8M0 scales
// (2^(s-127), 0xFF NaN), and the conversion of its section 6.3:
// X = 2^(floor(log2 max|V_i|) - emax_elem) clamped to E8M0's range,
// P_i = V_i/X rounded to nearest (ties to the even code) and clamped to the
// largest normal; a zero block has X = 2^-127; a NaN or Inf makes the block
// NaN. It shares no code with block.go, block_kernel.go or float.go.
type refMX struct {
	name       string
	isInt      bool
	e, m, bias int
	emax       int      // the largest normal's exponent (spec table)
	max        *big.Rat // the largest normal (spec table)
	e4m3, ieee bool     // E4M3 NaN at S.1111.111; E5M2 IEEE Inf/NaN
	bits       int
	nanCode    uint32 // the element code used in NaN blocks (0: none)
	vals       []*big.Rat
	codes      []uint32 // non-negative finite element values, increasing
}

func newRefMX(name string) *refMX {
	r := &refMX{name: name}
	switch name {
	case "mxfp8-e4m3":
		r.e, r.m, r.bias, r.emax, r.max, r.e4m3, r.nanCode = 4, 3, 7, 8, big.NewRat(448, 1), true, 0x7f
	case "mxfp8-e5m2":
		r.e, r.m, r.bias, r.emax, r.max, r.ieee, r.nanCode = 5, 2, 15, 15, big.NewRat(57344, 1), true, 0x7e
	case "mxfp6-e2m3":
		r.e, r.m, r.bias, r.emax, r.max = 2, 3, 1, 2, big.NewRat(15, 2)
	case "mxfp6-e3m2":
		r.e, r.m, r.bias, r.emax, r.max = 3, 2, 3, 4, big.NewRat(28, 1)
	case "mxfp4-e2m1":
		r.e, r.m, r.bias, r.emax, r.max = 2, 1, 1, 2, big.NewRat(6, 1)
	case "mxint8":
		r.isInt, r.emax, r.max = true, 0, big.NewRat(127, 64)
	default:
		panic("refMX: unknown " + name)
	}
	r.bits = 8
	if !r.isInt {
		r.bits = 1 + r.e + r.m
	}
	for c := uint32(0); c < 1<<(r.bits-1); c++ {
		v, kind := r.decode(c)
		if kind == refFinite && v.Cmp(r.max) <= 0 {
			r.vals = append(r.vals, v)
			r.codes = append(r.codes, c)
		}
	}
	sort.Slice(r.vals, func(i, j int) bool { return r.vals[i].Cmp(r.vals[j]) < 0 }) // already in code order
	if r.vals[len(r.vals)-1].Cmp(r.max) != 0 {
		panic("refMX: " + name + ": largest element is not the table's")
	}
	return r
}

const (
	refFinite = iota
	refNaN
	refInf
)

// decode returns the magnitude and kind of element code c; the sign is
// c's top bit (for INT8 the magnitude of a negative code is that of its
// two's complement).
func (r *refMX) decode(c uint32) (*big.Rat, int) {
	if r.isInt {
		v := int64(int8(uint8(c)))
		if v < 0 {
			v = -v
		}
		return big.NewRat(v, 64), refFinite
	}
	exp := int(c>>r.m) & (1<<r.e - 1)
	man := int64(c) & (1<<r.m - 1)
	allOnes := 1<<r.e - 1
	switch {
	case r.e4m3 && exp == allOnes && man == 1<<r.m-1:
		return nil, refNaN
	case r.ieee && exp == allOnes && man == 0:
		return nil, refInf
	case r.ieee && exp == allOnes:
		return nil, refNaN
	}
	if exp == 0 { // subnormal: 2^(1-bias)·0.M
		return new(big.Rat).Mul(big.NewRat(man, 1<<r.m), refPow2(1-r.bias)), refFinite
	}
	return new(big.Rat).Mul(big.NewRat(1<<r.m+man, 1<<r.m), refPow2(exp-r.bias)), refFinite
}

func refPow2(e int) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
}

// refFloorLog2 returns floor(log2 x) for x > 0.
func refFloorLog2(x *big.Rat) int {
	e := x.Num().BitLen() - x.Denom().BitLen()
	if x.Cmp(refPow2(e)) < 0 {
		e--
	}
	return e
}

// roundMag returns the code of the element value nearest to a >= 0, ties
// to the even code, clamped to the largest normal.
func (r *refMX) roundMag(a *big.Rat) uint32 {
	if a.Cmp(r.max) >= 0 {
		return r.codes[len(r.codes)-1]
	}
	i := sort.Search(len(r.vals), func(i int) bool { return r.vals[i].Cmp(a) > 0 }) // vals[i-1] <= a < vals[i]
	lo, hi := i-1, i
	dLo := new(big.Rat).Sub(a, r.vals[lo])
	dHi := new(big.Rat).Sub(r.vals[hi], a)
	switch c := dLo.Cmp(dHi); {
	case c < 0 || dLo.Sign() == 0:
		return r.codes[lo]
	case c > 0:
		return r.codes[hi]
	case r.codes[lo]&1 == 0:
		return r.codes[lo]
	}
	return r.codes[hi]
}

// convert converts one block of finite-or-not float64 values: the E8M0
// scale code, the element codes, and the values as float64 (exact).
func (r *refMX) convert(vs []float64) (scale uint8, codes []uint32, vals []float64) {
	codes = make([]uint32, len(vs))
	vals = make([]float64, len(vs))
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			for i := range vs {
				codes[i], vals[i] = r.nanCode, math.NaN()
			}
			return 0xff, codes, vals
		}
	}
	amax := new(big.Rat)
	for _, v := range vs {
		a := new(big.Rat).SetFloat64(math.Abs(v))
		if a.Cmp(amax) > 0 {
			amax = a
		}
	}
	shared := -127
	if amax.Sign() != 0 {
		shared = min(max(refFloorLog2(amax)-r.emax, -127), 127)
	}
	X := refPow2(shared)
	for i, v := range vs {
		a := new(big.Rat).Quo(new(big.Rat).SetFloat64(math.Abs(v)), X)
		c := r.roundMag(a)
		mag, _ := r.decode(c)
		val, _ := new(big.Rat).Mul(mag, X).Float64() // exact: at most 8 significant bits
		neg := math.Signbit(v)
		switch {
		case r.isInt && neg && c != 0:
			c = uint32(uint8(-int8(c)))
			val = -val
		case r.isInt:
		case neg:
			c |= 1 << (r.bits - 1)
			val = math.Copysign(val, -1)
		}
		codes[i], vals[i] = c, val
	}
	return uint8(shared + 127), codes, vals
}

// refBlockPosit is the reference for posit(n,es,block=K): the per-block
// exponent bias from the rule k = t - floor(log2 max|finite V_i|) clamped
// to [-127, 127] (0 for a block without finite nonzero values), t = 3, 2,
// 3 for es = 0, 1, 2, and each value rounded by the posit reference
// (posit_ref_test.go) with bias k.
type refBlockPosit struct {
	n, es int
	refs  map[int]*refFormat
}

func (r *refBlockPosit) bias(vs []float64) int {
	amax := new(big.Rat)
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if a := new(big.Rat).SetFloat64(math.Abs(v)); a.Cmp(amax) > 0 {
			amax = a
		}
	}
	if amax.Sign() == 0 {
		return 0
	}
	t := []int{3, 2, 3}[r.es]
	return min(max(t-refFloorLog2(amax), -127), 127)
}

func (r *refBlockPosit) format(k int) *refFormat {
	if r.refs == nil {
		r.refs = map[int]*refFormat{}
	}
	f, ok := r.refs[k]
	if !ok {
		if r.n > 8 {
			f = &refFormat{n: r.n, es: r.es, k: k} // no tables: one per bias would be slow
		} else {
			f = newRefFormat(r.n, r.es, k)
		}
		r.refs[k] = f
	}
	return f
}
