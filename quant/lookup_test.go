package quant

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// codecOf hides every method of a built-in format but the four of Codec,
// so that FromCodec derives the rest; with64 keeps Encode64 too.
type codecOf struct{ f Format }

func (c codecOf) String() string          { return c.f.String() + "-codec" }
func (c codecOf) Bits() int               { return c.f.Bits() }
func (c codecOf) Encode(x float32) uint32 { return c.f.Encode(x) }
func (c codecOf) Decode(k uint32) float64 { return c.f.Decode(k) }

type codec64Of struct{ codecOf }

func (c codec64Of) String() string { return c.f.String() + "-codec64" }
func (c codec64Of) Encode64(x float64) uint32 {
	return c.f.(interface{ Encode64(float64) uint32 }).Encode64(x)
}

// lookupProbes returns float32 inputs that exercise every decision of a
// format whose values are vals and whose tie points are ties: each value
// and tie, the arithmetic midpoint of each pair of neighbours, two float32
// ulps either side of each, ±0, ±Inf, NaN, the extremes of float32, and
// random bit patterns.
func lookupProbes(vals, ties []float64, rng *rand.Rand) []float32 {
	var xs []float32
	add := func(v float64) {
		if math.IsNaN(v) {
			return
		}
		k := key32(math.Float32bits(float32(v)))
		for d := -2; d <= 2; d++ {
			if x := unkey32(k + uint32(d)); x == x {
				xs = append(xs, x)
			}
		}
	}
	for i, v := range vals {
		add(v)
		if i > 0 && !math.IsNaN(vals[i-1]) && !math.IsNaN(v) {
			add(vals[i-1]/2 + v/2)
		}
	}
	for _, v := range ties {
		add(v)
	}
	for _, v := range []float64{0, math.MaxFloat32, math.SmallestNonzeroFloat32} {
		add(v)
		add(-v)
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	for range 2000 {
		xs = append(xs, math.Float32frombits(rng.Uint32()))
	}
	return xs
}

// same reports whether a and b are the same float (NaNs are all the same).
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}

// sortedValues returns the values of every code of f, ascending.
func sortedValues(f Format) []float64 {
	var vs []float64
	for c := uint32(0); c < 1<<f.Bits(); c++ {
		vs = append(vs, f.Decode(c))
	}
	return vs
}

// The rounding FromCodec derives from Encode and Decode alone agrees with
// the built-in kernels on every code, every tie point (posit ties are
// (n+1)-bit posits, float ties the values of a float with one more
// mantissa bit), two ulps around each, and in every method; Round64 also
// on float64 inputs one and two float64 ulps around each probe, with and
// without Encode64.
func TestFromCodecAgreesWithBuiltins(t *testing.T) {
	for _, tc := range []struct{ f, finer string }{
		{"posit(8,1)", "posit(9,1)"},
		{"posit(8,0)", "posit(9,0)"},
		{"posit(6,2)", "posit(7,2)"},
		{"posit(8,1,scale=-3)", "posit(9,1,scale=-3)"},
		{"fp8-e4m3", "float(4,4,special=ocp)"},
		{"fp8-e5m2", "float(5,3)"},
		{"fp6-e2m3", "float(2,4,special=none)"},
		{"fp4-e2m1", "float(2,2,special=none)"},
		{"fixed(8,4)", "fixed(9,5)"},
		{"posit(12,1)", "posit(13,1)"},
	} {
		f := MustParse(tc.f)
		finer, err := Parse(tc.finer)
		if err != nil {
			t.Fatalf("%s: %v", tc.finer, err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		xs := lookupProbes(sortedValues(f), sortedValues(finer), rng)
		for _, c := range []Codec{codecOf{f}, codec64Of{codecOf{f}}} {
			g, err := FromCodec(c)
			if err != nil {
				t.Fatalf("FromCodec(%v): %v", c, err)
			}
			want, got := make([]float32, len(xs)), make([]float32, len(xs))
			f.RoundSlice(want, xs)
			g.RoundSlice(got, xs)
			bad := 0
			for i, x := range xs {
				if !same(float64(got[i]), float64(want[i])) || !same(float64(g.Round(x)), float64(want[i])) {
					if bad++; bad < 5 {
						t.Errorf("%v: Round(%g) = %g, RoundSlice %g; %v gives %g", c, x, g.Round(x), got[i], f, want[i])
					}
				}
				if x == x && g.Encode(x) != f.Encode(x) && !same(f.Decode(f.Encode(x)), g.Decode(g.Encode(x))) {
					t.Errorf("%v: Encode(%g) = %#x, want %#x", c, x, g.Encode(x), f.Encode(x))
				}
				x64 := float64(x)
				k := key64(math.Float64bits(x64))
				for d := -2; d <= 2; d++ {
					y := unkey64(k + uint64(d))
					if math.IsInf(x64, 0) || x != x {
						y = x64
					}
					if got, want := g.Round64(y), f.Round64(y); !same(got, want) {
						if bad++; bad < 5 {
							t.Errorf("%v: Round64(%g) = %g, want %g", c, y, got, want)
						}
					}
				}
			}
			// Stochastic rounding gives one of the two bracketing values.
			var vs []float64
			for _, v := range sortedValues(f) {
				if v == v {
					vs = append(vs, v)
				}
			}
			slices.Sort(vs)
			st := make([]float32, len(xs))
			g.RoundSliceStochastic(st, xs, rand.NewPCG(3, 4))
			for i, x := range xs {
				if x != x || math.IsInf(float64(x), 0) {
					continue
				}
				lo, hi := bracket(vs, x)
				if v := float64(st[i]); v != lo && v != hi {
					t.Errorf("%v: stochastic %g gave %g, not %g or %g", c, x, v, lo, hi)
				}
			}
		}
	}
}

// bracket returns the largest value of vs (ascending, NaNs removed) <= x
// and the smallest >= x, clamped to their range, as float32s.
func bracket(vs []float64, x float32) (lo, hi float64) {
	i := sort.SearchFloat64s(vs, float64(x)) // first >= x
	j := i
	if j == len(vs) {
		j--
	}
	if i == len(vs) || vs[i] > float64(x) {
		i = max(i-1, 0)
	}
	return float64(float32(vs[i])), float64(float32(vs[j]))
}
