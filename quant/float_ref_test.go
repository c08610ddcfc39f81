package quant

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
)

// refFloat is an independent reference for float(e, m), written from the
// definition with math/big. It reads only the parameters of a Float (e, m,
// bias, subnormals, specials, overflow) and shares no code with float.go.
//
// Rounding: the exact input r = |x| lies between two neighbours lo <= r <=
// hi on the grid of the format (on the grid extended below the smallest
// normal, without subnormals); the nearer wins and a tie goes to the even
// code. Then: without subnormals a result below the smallest normal is
// flushed to 0; above max, saturation gives max, and IEEE overflow gives
// Inf when r >= max + ulp/2 (ulp = 2^(emax-m)) and max otherwise.
type refFloat struct {
	e, m, bias       int
	sub, sat         bool
	special          Specials
	max, minNorm     *big.Rat
	maxField, maxMan int64 // fields of the largest finite value

	// vals and codes tabulate every canonical non-negative finite value in
	// increasing order, for formats of up to 16 bits.
	vals  []*big.Rat
	codes []uint32
}

func fltPow2(e int) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
}

func newRefFloat(f Float) *refFloat {
	r := &refFloat{e: f.E(), m: f.M(), bias: f.Bias(), sub: f.Subnormals(),
		sat: f.Overflow() == OverflowSaturate, special: f.Specials()}
	// The largest finite code, from the definition of each encoding.
	allOnes := int64(1)<<r.e - 1
	r.maxField, r.maxMan = allOnes, int64(1)<<r.m-1
	switch r.special {
	case SpecialsIEEE:
		r.maxField--
	case SpecialsOCP:
		if r.m == 0 {
			r.maxField--
		} else {
			r.maxMan--
		}
	}
	r.max = r.value(r.maxField, r.maxMan)
	r.minNorm = fltPow2(1 - r.bias)
	if 1+r.e+r.m <= 16 {
		for c := uint32(0); c < 1<<(r.e+r.m); c++ {
			v, kind := r.decode(c)
			if kind != fltFinite || v.rat.Sign() == 0 && c != 0 {
				continue
			}
			r.vals = append(r.vals, v.rat)
			r.codes = append(r.codes, c)
		}
		// Sort by value; the float64 keys are exact.
		keys := make([]float64, len(r.vals))
		for i, v := range r.vals {
			keys[i], _ = v.Float64()
		}
		sort.Sort(fltByRat{keys, r.vals, r.codes})
	}
	return r
}

type fltByRat struct {
	k []float64
	v []*big.Rat
	c []uint32
}

func (b fltByRat) Len() int           { return len(b.v) }
func (b fltByRat) Less(i, j int) bool { return b.k[i] < b.k[j] }
func (b fltByRat) Swap(i, j int) {
	b.k[i], b.k[j] = b.k[j], b.k[i]
	b.v[i], b.v[j] = b.v[j], b.v[i]
	b.c[i], b.c[j] = b.c[j], b.c[i]
}

// value returns the value of the exponent and mantissa fields.
func (r *refFloat) value(field, man int64) *big.Rat {
	if field == 0 {
		if !r.sub {
			return new(big.Rat)
		}
		return new(big.Rat).Mul(big.NewRat(man, 1), fltPow2(1-r.bias-r.m))
	}
	return new(big.Rat).Mul(big.NewRat(int64(1)<<r.m+man, 1), fltPow2(int(field)-r.bias-r.m))
}

// fltVal is a decoded value: rat (with sign) if finite, else inf = ±Inf or
// NaN.
type fltVal struct {
	rat *big.Rat
	inf float64
	neg bool
}

// Kinds of code.
const (
	fltFinite = iota
	fltInf
	fltNaN
	fltDAZ // a subnormal code of a format without subnormals: reads as ±0
)

// decode returns the value and kind of code c.
func (r *refFloat) decode(c uint32) (v fltVal, kind int) {
	n := r.e + r.m
	neg := c>>n&1 == 1
	field := int64(c>>r.m) & (1<<r.e - 1)
	man := int64(c) & (1<<r.m - 1)
	allOnes := int64(1)<<r.e - 1
	switch r.special {
	case SpecialsIEEE:
		if field == allOnes {
			if man != 0 {
				return v, fltNaN
			}
			v.inf = math.Inf(1)
			if neg {
				v.inf = math.Inf(-1)
			}
			return v, fltInf
		}
	case SpecialsOCP:
		if field == allOnes && man == 1<<r.m-1 {
			return v, fltNaN
		}
	case SpecialsFNUZ:
		if neg && field == 0 && man == 0 {
			return v, fltNaN
		}
	}
	v.rat = r.value(field, man)
	v.neg = neg
	if neg {
		v.rat.Neg(v.rat)
	}
	if field == 0 && man != 0 && !r.sub {
		return v, fltDAZ
	}
	return v, fltFinite
}

// fltFloorLog2 returns floor(log2 x) for x > 0.
func fltFloorLog2(x *big.Rat) int {
	e := x.Num().BitLen() - x.Denom().BitLen()
	if x.Cmp(fltPow2(e)) < 0 {
		e--
	}
	return e
}

// roundMag rounds r > 0 to the format; it returns the magnitude, or nil for
// Inf.
func (r *refFloat) roundMag(x *big.Rat) *big.Rat {
	var lo, hi *big.Rat
	var loOdd bool
	if r.vals != nil && r.sub {
		// Tabulated: the neighbours by search.
		i := sort.Search(len(r.vals), func(i int) bool { return r.vals[i].Cmp(x) >= 0 })
		if i == len(r.vals) {
			lo, hi = r.max, nil
		} else if r.vals[i].Cmp(x) == 0 {
			return r.vals[i]
		} else {
			lo, hi = r.vals[i-1], r.vals[i]
			loOdd = r.codes[i-1]&1 == 1
		}
	} else {
		// The grid: spacing q = 2^(E-m) in the binade [2^E, 2^(E+1)),
		// 2^(emin-m) below the smallest normal if there are subnormals.
		E := fltFloorLog2(x)
		if r.sub && E < 1-r.bias {
			E = 1 - r.bias
		}
		q := fltPow2(E - r.m)
		k := new(big.Int).Quo(new(big.Rat).Quo(x, q).Num(), new(big.Rat).Quo(x, q).Denom())
		lo = new(big.Rat).Mul(new(big.Rat).SetInt(k), q)
		hi = new(big.Rat).Add(lo, q)
		if lo.Cmp(x) == 0 {
			hi = lo
		}
		loOdd = k.Bit(0) == 1
		if r.m == 0 && k.Sign() != 0 {
			// No mantissa bits: the code's last bit is the exponent field's.
			loOdd = (fltFloorLog2(lo)+r.bias)&1 == 1
		}
	}
	var res *big.Rat
	switch {
	case hi == nil:
		res = nil // beyond the table: overflow below
	case lo.Cmp(hi) == 0:
		res = lo
	default:
		d := new(big.Rat).Sub(new(big.Rat).Sub(hi, x), new(big.Rat).Sub(x, lo)).Sign()
		if d > 0 || d == 0 && !loOdd {
			res = lo
		} else {
			res = hi
		}
	}
	if !r.sub && res != nil && res.Cmp(r.minNorm) < 0 {
		return new(big.Rat)
	}
	if res == nil || res.Cmp(r.max) > 0 {
		if r.sat {
			return r.max
		}
		half := fltPow2(int(r.maxField) - r.bias - r.m - 1)
		if x.Cmp(new(big.Rat).Add(r.max, half)) >= 0 {
			return nil
		}
		return r.max
	}
	return res
}

// round returns the expected float64 result of rounding x (exact: every
// value is a float64) and whether it is NaN.
func (r *refFloat) round(x float64) (float64, bool) {
	switch {
	case math.IsNaN(x):
		return 0, r.special != SpecialsNone
	case math.IsInf(x, 0):
		if r.sat {
			v, _ := r.max.Float64()
			return math.Copysign(v, x), false
		}
		return x, false
	case x == 0:
		if r.special == SpecialsFNUZ {
			return 0, false
		}
		return x, false
	}
	mag := r.roundMag(new(big.Rat).Abs(new(big.Rat).SetFloat64(x)))
	var v float64
	if mag == nil {
		v = math.Inf(1)
	} else {
		var exact bool
		v, exact = mag.Float64()
		if !exact {
			panic("reference value not a float64")
		}
	}
	if v == 0 && r.special == SpecialsFNUZ {
		return 0, false
	}
	return math.Copysign(v, x), false
}

// fltFormats is the spread of formats checked against the reference.
func fltFormats(t testing.TB) []Float {
	fs := []Float{FP16, BF16, FP8E4M3, FP8E5M2, FP8IBMFwd, FP8IBMBwd}
	for _, s := range []string{
		"float(6,9)",
		"float(4,3)", "float(4,3,subnormals=false)", "float(4,3,overflow=saturate)",
		"float(4,3,special=none)", "float(4,3,special=fnuz,subnormals=false)",
		"float(4,3,bias=3)", "float(4,3,bias=-2,special=ocp)", "float(4,3,bias=20)",
		"float(5,2,subnormals=false,overflow=saturate)", "float(5,2,special=ocp,bias=16)",
		"float(3,2)", "float(3,4,special=ocp)", "float(2,1)", "float(2,1,special=none)",
		"float(1,3,special=none)", "float(1,0,special=none)", "float(1,6,special=fnuz)",
		"float(3,0,special=none)", "float(4,0,special=ocp)", "float(4,0,special=none,bias=4)",
		"float(5,1)", "float(5,4,bias=10)", "float(6,3)", "float(7,2)", "float(8,2)",
		"float(8,3,special=ocp)", "float(8,7,subnormals=false)", "float(8,4,bias=140)",
		"float(8,4,bias=100)", "float(7,8,bias=0)", "float(5,10,subnormals=false)",
		"float(4,11,bias=-120,special=none)", "float(2,13,special=none)",
		"float(8,10,bias=120,subnormals=false)", "float(6,9,bias=-60)",
		"float(8,7,bias=130,subnormals=false)", "float(5,2,bias=140)", "float(8,0,special=ocp,bias=126)",
		"float(6,0,special=fnuz,subnormals=false)", "float(7,0,special=none,bias=60,subnormals=false)",
		"float(4,2,bias=150,special=ocp,subnormals=false)", "float(3,2,bias=-90)",
	} {
		f, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		fs = append(fs, f.(Float))
	}
	return fs
}

// fltWideFormats have more than 16 bits: the reference uses its grid.
func fltWideFormats(t testing.TB) []Float {
	var fs []Float
	for _, s := range []string{
		"fp32", "float(8,16)", "float(8,20,subnormals=false)", "float(5,20)",
		"float(4,24,special=ocp)", "float(6,25)", "float(8,23,bias=100)",
		"float(8,23,overflow=saturate)", "float(3,28,special=none)", "float(7,24,bias=-40)",
		"float(8,18,bias=200)", "float(1,30,special=none)",
	} {
		f, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		fs = append(fs, f.(Float))
	}
	return fs
}

// fltProbes returns float32 inputs that stress f: every value and, where
// float32 holds them, every midpoint, each ±1 float32 ulp; the overflow
// threshold and its neighbours; float32 and format subnormals; ±0, ±Inf,
// NaN; random bit patterns; random values in and near the format's range.
func fltProbes(r *refFloat, rng *rand.Rand, nRandom int) []float32 {
	var xs []float32
	add := func(v *big.Rat) {
		f, _ := v.Float64()
		x := float32(f)
		if float64(x) != f || math.IsInf(float64(x), 0) {
			return // not a float32
		}
		xs = append(xs, x, math.Nextafter32(x, float32(math.Inf(1))), math.Nextafter32(x, float32(math.Inf(-1))))
	}
	// Every value of formats up to 12 bits; a strided sample of wider ones.
	stride := max(1, len(r.vals)/4096)
	for i := rng.IntN(stride); i < len(r.vals); i += stride {
		v := r.vals[i]
		add(v)
		if i+1 < len(r.vals) {
			add(new(big.Rat).Quo(new(big.Rat).Add(v, r.vals[i+1]), big.NewRat(2, 1)))
		}
	}
	ulp := fltPow2(int(r.maxField) - r.bias - r.m)
	add(r.max)
	add(new(big.Rat).Add(r.max, new(big.Rat).Quo(ulp, big.NewRat(2, 1))))
	add(new(big.Rat).Add(r.max, ulp))
	add(r.minNorm)
	add(new(big.Rat).Quo(r.minNorm, big.NewRat(2, 1)))
	add(new(big.Rat).Mul(r.minNorm, big.NewRat(3, 4)))
	// The flush threshold without subnormals: minNorm·(1 - 2^-(m+2)).
	add(new(big.Rat).Sub(r.minNorm, new(big.Rat).Mul(r.minNorm, fltPow2(-r.m-2))))
	if r.sub {
		q := fltPow2(1 - r.bias - r.m)
		for k := int64(1); k < 8; k++ {
			add(new(big.Rat).Mul(q, big.NewRat(k, 2)))
		}
	}
	for k := uint32(1); k < 64; k++ {
		xs = append(xs, math.Float32frombits(k), math.Float32frombits(0x800000-k), math.Float32frombits(0x800000+k))
	}
	inf := float32(math.Inf(1))
	xs = append(xs, 0, math.MaxFloat32, math.SmallestNonzeroFloat32, inf, float32(math.NaN()),
		math.Float32frombits(0x7f800001), math.Float32frombits(0x7fffffff))
	lo, _ := fltPow2(-r.bias - r.m - 2).Float64()
	hi, _ := new(big.Rat).Mul(r.max, big.NewRat(4, 1)).Float64()
	llo, lhi := math.Log2(max(lo, 1e-45)), math.Log2(min(hi, math.MaxFloat32))
	for range nRandom {
		xs = append(xs, math.Float32frombits(rng.Uint32()))
		if llo < lhi {
			xs = append(xs, float32(math.Exp2(llo+(lhi-llo)*rng.Float64())))
		}
	}
	n := len(xs)
	for i := range n {
		xs = append(xs, -xs[i])
	}
	return xs
}

func fltSame(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

// fltCheck rounds xs by every path of f and compares with r.
func fltCheck(t *testing.T, f Float, r *refFloat, xs []float32) {
	t.Helper()
	dst := make([]float32, len(xs))
	f.RoundSlice(dst, xs)
	var dstGo []float32
	if k, ok := f.kernel(); ok {
		dstGo = make([]float32, len(xs))
		f.roundFloatChunked(dstGo, xs, &k, true) // the portable Go path
	}
	bad := 0
	for i, x := range xs {
		w64, wantNaN := r.round(float64(x))
		want := float32(w64)
		if wantNaN {
			want = float32(math.NaN())
		}
		check := func(path string, got float32) {
			if !fltSame(got, want) {
				bad++
				if bad <= 10 {
					t.Errorf("%v: %s(%g [%#08x]) = %g [%#08x], want %g [%#08x]", f, path, x, math.Float32bits(x),
						got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
		}
		check("RoundSlice", dst[i])
		if dstGo != nil {
			check("kernel", dstGo[i])
		}
		if i%7 == 0 {
			check("Round", f.Round(x))
			g64 := f.Round64(float64(x))
			if !(math.Float64bits(g64) == math.Float64bits(w64) || g64 != g64 && wantNaN) {
				bad++
				t.Errorf("%v: Round64(%g) = %g, want %g", f, x, g64, w64)
			}
		}
		if bad > 10 {
			t.Fatalf("%v: too many errors", f)
		}
	}
}

func TestFloatRoundVsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	total := 0
	for _, f := range fltFormats(t) {
		r := newRefFloat(f)
		xs := fltProbes(r, rng, 2000)
		total += len(xs)
		fltCheck(t, f, r, xs)
	}
	t.Logf("%d inputs checked", total)
}

func TestFloatWideVsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, f := range fltWideFormats(t) {
		r := newRefFloat(f)
		xs := fltProbes(r, rng, 10000)
		// Values of the format around 1, max and the smallest normal, with
		// their midpoints, from the grid.
		for _, base := range []*big.Rat{big.NewRat(1, 1), r.max, r.minNorm} {
			E := fltFloorLog2(base)
			q := fltPow2(E - r.m)
			for j := int64(-40); j <= 40; j++ {
				v := new(big.Rat).Add(base, new(big.Rat).Mul(q, big.NewRat(j, 2)))
				if v.Sign() <= 0 {
					continue
				}
				if fv, exact := v.Float32(); exact {
					xs = append(xs, fv, math.Nextafter32(fv, 0), math.Nextafter32(fv, 1e38), -fv)
				}
			}
		}
		fltCheck(t, f, r, xs)
	}
}

// TestFloatTableVsGrid checks the reference's two ways of finding the
// neighbours (table search, grid arithmetic) against each other.
func TestFloatTableVsGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, f := range fltFormats(t) {
		if f.Bits() > 10 || !f.Subnormals() {
			continue
		}
		tab := newRefFloat(f)
		grid := newRefFloat(f)
		grid.vals = nil
		for _, x := range fltProbes(tab, rng, 500) {
			a, an := tab.round(float64(x))
			b, bn := grid.round(float64(x))
			if an != bn || !an && math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("%v: reference table gives %g, grid %g for %g", f, a, b, x)
			}
		}
	}
}

// TestFloatCodes checks Decode on every code against the reference, and
// that Encode inverts it on every canonical non-NaN code and agrees with
// the reference's code for every probe.
func TestFloatCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range fltFormats(t) {
		r := newRefFloat(f)
		n := uint32(1) << f.Bits()
		for c := uint32(0); c < n; c++ {
			got := f.Decode(c)
			v, kind := r.decode(c)
			switch kind {
			case fltNaN:
				if !math.IsNaN(got) {
					t.Errorf("%v: Decode(%#x) = %g, want NaN", f, c, got)
				}
				continue
			case fltDAZ:
				if got != 0 || math.Signbit(got) != v.neg {
					t.Errorf("%v: Decode(%#x) = %g, want ±0 (no subnormals)", f, c, got)
				}
				continue
			case fltInf:
				if got != v.inf {
					t.Errorf("%v: Decode(%#x) = %g, want %g", f, c, got, v.inf)
				}
			default:
				if new(big.Rat).SetFloat64(got).Cmp(v.rat) != 0 || math.Signbit(got) != v.neg {
					t.Errorf("%v: Decode(%#x) = %g, want %s", f, c, got, v.rat.RatString())
				}
			}
			if kind == fltInf && r.sat {
				continue // saturating formats encode ±Inf as ±max
			}
			if x := float32(got); float64(x) == got {
				if e := f.Encode(x); e != c {
					t.Errorf("%v: Encode(Decode(%#x) = %g) = %#x", f, c, got, e)
				}
			}
			if e := f.Encode64(got); e != c {
				t.Errorf("%v: Encode64(Decode(%#x) = %g) = %#x", f, c, got, e)
			}
		}
		// Encode of probes: the code of the reference's result.
		xs := fltProbes(r, rng, 1000)
		for range 5000 {
			x := xs[rng.IntN(len(xs))]
			w, nan := r.round(float64(x))
			c := f.Encode(x)
			d := f.Decode(c)
			if nan {
				if !math.IsNaN(d) {
					t.Errorf("%v: Encode(%g) = %#x, not NaN", f, x, c)
				}
				continue
			}
			if math.Float64bits(d) != math.Float64bits(w) {
				t.Errorf("%v: Encode(%g) = %#x (%g), want the code of %g", f, x, c, d, w)
			}
		}
	}
}

// TestFloatWideCodes samples the codes of the formats wider than 16 bits:
// Decode against the reference and Encode64(Decode(c)) == c.
func TestFloatWideCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, f := range fltWideFormats(t) {
		r := newRefFloat(f)
		for range 20000 {
			c := rng.Uint32() & f.Mask()
			if rng.IntN(8) == 0 {
				c &= 0x8000ffff // small magnitudes: subnormals
			}
			got := f.Decode(c)
			v, kind := r.decode(c)
			switch kind {
			case fltNaN:
				if !math.IsNaN(got) {
					t.Fatalf("%v: Decode(%#x) = %g, want NaN", f, c, got)
				}
				continue
			case fltDAZ:
				if got != 0 || math.Signbit(got) != v.neg {
					t.Fatalf("%v: Decode(%#x) = %g, want ±0", f, c, got)
				}
				continue
			case fltInf:
				if got != v.inf {
					t.Fatalf("%v: Decode(%#x) = %g, want %g", f, c, got, v.inf)
				}
				if r.sat {
					continue
				}
			default:
				if new(big.Rat).SetFloat64(got).Cmp(v.rat) != 0 || math.Signbit(got) != v.neg {
					t.Fatalf("%v: Decode(%#x) = %g, want %s", f, c, got, v.rat.RatString())
				}
			}
			if e := f.Encode64(got); e != c {
				t.Fatalf("%v: Encode64(Decode(%#x) = %g) = %#x", f, c, got, e)
			}
		}
	}
}
