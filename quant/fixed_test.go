package quant

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// refFixed is an independent reference for fixed(wl, fl) from the
// definition: code c (two's complement) has the value c/2^fl; x rounds to
// the integer k nearest x·2^fl (ties to even k), clamped to
// [-2^(wl-1), 2^(wl-1)-1]; NaN gives 0.
type refFixed struct{ wl, fl int }

func (r refFixed) value(k *big.Int) *big.Rat {
	return new(big.Rat).Mul(new(big.Rat).SetInt(k), fltPow2(-r.fl))
}

// decode reads code c bit by bit: bit wl-1 weighs -2^(wl-1).
func (r refFixed) decode(c uint32) *big.Rat {
	k := new(big.Int)
	for i := 0; i < r.wl; i++ {
		if c>>i&1 == 1 {
			w := new(big.Int).Lsh(big.NewInt(1), uint(i))
			if i == r.wl-1 {
				w.Neg(w)
			}
			k.Add(k, w)
		}
	}
	return r.value(k)
}

// round returns the integer k of the result.
func (r refFixed) round(x float64) *big.Int {
	lo := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(r.wl-1)))
	hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(r.wl-1)), big.NewInt(1))
	switch {
	case math.IsNaN(x):
		return new(big.Int)
	case math.IsInf(x, 1):
		return hi
	case math.IsInf(x, -1):
		return lo
	}
	y := new(big.Rat).Mul(new(big.Rat).SetFloat64(x), fltPow2(r.fl))
	// floor(y), then compare the fraction with 1/2.
	k := new(big.Int).Div(y.Num(), y.Denom()) // Euclidean: floor for positive denominators
	frac := new(big.Rat).Sub(y, new(big.Rat).SetInt(k))
	switch frac.Cmp(big.NewRat(1, 2)) {
	case 1:
		k.Add(k, big.NewInt(1))
	case 0:
		if k.Bit(0) == 1 {
			k.Add(k, big.NewInt(1))
		}
	}
	if k.Cmp(lo) < 0 {
		return lo
	}
	if k.Cmp(hi) > 0 {
		return hi
	}
	return k
}

var fixedCases = [][2]int{
	{2, 0}, {3, 1}, {4, 2}, {8, 0}, {8, 4}, {8, 7}, {8, -3}, {8, 10}, {12, 6},
	{16, 8}, {16, -4}, {16, 20}, {24, 12}, {25, 30}, {32, 16}, {32, -8}, {32, 40},
}

func fixedProbes(r refFixed, rng *rand.Rand) []float32 {
	var xs []float32
	add := func(v *big.Rat) {
		if f, exact := v.Float32(); exact && !math.IsInf(float64(f), 0) {
			xs = append(xs, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1))))
		}
	}
	lo := -(int64(1) << (r.wl - 1))
	hi := int64(1)<<(r.wl-1) - 1
	// Every code and tie of small formats, a spread of the others.
	step := max(1, (hi-lo)/4096)
	for k := lo + rng.Int64N(step); k <= hi+1; k += step {
		add(r.value(big.NewInt(k)))
		add(new(big.Rat).Add(r.value(big.NewInt(k)), new(big.Rat).Quo(fltPow2(-r.fl), big.NewRat(2, 1))))
	}
	for _, k := range []int64{lo, lo + 1, -1, 0, 1, hi - 1, hi, hi + 1, 2 * hi, 2 * lo} {
		add(r.value(big.NewInt(k)))
		add(new(big.Rat).Add(r.value(big.NewInt(k)), new(big.Rat).Quo(fltPow2(-r.fl), big.NewRat(2, 1))))
	}
	inf := float32(math.Inf(1))
	xs = append(xs, 0, float32(math.Copysign(0, -1)), inf, -inf, float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, 1e-45)
	for range 3000 {
		xs = append(xs, math.Float32frombits(rng.Uint32()))
		x := math.Ldexp(rng.NormFloat64(), rng.IntN(r.wl+4)-r.fl-2)
		xs = append(xs, float32(x))
	}
	return xs
}

func TestFixedVsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range fixedCases {
		f, err := NewFixed(c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		r := refFixed{c[0], c[1]}
		xs := fixedProbes(r, rng)
		dst := make([]float32, len(xs))
		f.RoundSlice(dst, xs)
		bad := 0
		for i, x := range xs {
			k := r.round(float64(x))
			wantRat := r.value(k)
			want64, _ := wantRat.Float64()
			want, _ := wantRat.Float32()
			got64 := f.Round64(float64(x))
			wantCode := uint32(k.Int64()) & (1<<c[0] - 1)
			if math.Float32bits(dst[i]) != math.Float32bits(want) || math.Float32bits(f.Round(x)) != math.Float32bits(want) ||
				math.Float64bits(got64) != math.Float64bits(want64) || f.Encode(x) != wantCode {
				bad++
				t.Errorf("%v: x=%g: RoundSlice %g, Round %g, Round64 %g, Encode %#x; want %g (code %#x)",
					f, x, dst[i], f.Round(x), got64, f.Encode(x), want64, wantCode)
				if bad > 10 {
					t.FailNow()
				}
			}
		}
	}
}

func TestFixedCodes(t *testing.T) {
	for _, c := range fixedCases {
		if c[0] > 16 {
			continue
		}
		f, _ := NewFixed(c[0], c[1])
		r := refFixed{c[0], c[1]}
		for code := uint32(0); code < 1<<c[0]; code++ {
			got := f.Decode(code)
			if new(big.Rat).SetFloat64(got).Cmp(r.decode(code)) != 0 || got == 0 && math.Signbit(got) {
				t.Fatalf("%v: Decode(%#x) = %g, want %s", f, code, got, r.decode(code).RatString())
			}
			if x := float32(got); float64(x) == got && f.Encode(x) != code {
				t.Fatalf("%v: Encode(Decode(%#x)) = %#x", f, code, f.Encode(x))
			}
		}
		if f.Max() != math.Ldexp(float64(int64(1)<<(c[0]-1)-1), -c[1]) || f.Min() != -math.Ldexp(1, c[0]-1-c[1]) {
			t.Errorf("%v: Max %g, Min %g", f, f.Max(), f.Min())
		}
	}
}

func TestFixedHand(t *testing.T) {
	f := MustParse("fixed(8,4)")
	inf := float32(math.Inf(1))
	for _, c := range []struct{ in, want float32 }{
		{0.03125, 0},     // tie between 0 and 1/16: even 0
		{0.09375, 0.125}, // tie between 1/16 and 2/16: even 2/16
		{-0.09375, -0.125},
		{7.9375, 7.9375},  // max = 127/16
		{7.96875, 7.9375}, // tie above max: saturates
		{100, 7.9375}, {-100, -8}, {inf, 7.9375}, {-inf, -8},
		{float32(math.NaN()), 0}, {-0.01, 0},
	} {
		got := f.Round(c.in)
		if math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("fixed(8,4): Round(%g) = %g, want %g", c.in, got, c.want)
		}
	}
}

func TestFixedNamesAndScale(t *testing.T) {
	for _, c := range fixedCases {
		f, _ := NewFixed(c[0], c[1])
		if g := MustParse(f.String()); g != f {
			t.Errorf("Parse(%q) = %v", f.String(), g)
		}
		g, err := Scale(f, 3)
		if err != nil || g != (Fixed{wl: uint8(c[0]), fl: int16(c[1] + 3)}) {
			t.Errorf("Scale(%v, 3) = %v, %v", f, g, err)
		}
		if h, _ := Scale(g, -3); h != f {
			t.Errorf("Scale(Scale(%v, 3), -3) = %v", f, h)
		}
	}
	if s := MustParse(" Fixed( 8 , -2 ) ").String(); s != "fixed(8,-2)" {
		t.Errorf("got %q", s)
	}
	for _, c := range []struct{ name, want string }{
		{"fixed(1,0)", "word length"}, {"fixed(33,0)", "word length"},
		{"fixed(8,600)", "fraction bits"}, {"fixed(8)", "fixed takes"},
		{"fixed(8,4,1)", "fixed takes"}, {"fixed(a,4)", "not an integer"},
		{"fixed(8,b)", "not an integer"},
	} {
		_, err := Parse(c.name)
		var fe FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want a FormatError mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := Scale(MustParse("fixed(8,4)"), 1000); err == nil {
		t.Error("Scale(fixed(8,4), 1000): no error")
	}
}

func TestFixedStochastic(t *testing.T) {
	const n = 4000
	rng := rand.New(rand.NewPCG(23, 24))
	for _, c := range [][2]int{{8, 4}, {4, 0}, {16, 12}, {8, -2}} {
		f, _ := NewFixed(c[0], c[1])
		q := math.Ldexp(1, -c[1])
		src := make([]float32, n)
		dst := make([]float32, n)
		for range 20 {
			x := float32((rng.Float64()*2 - 1) * f.Max())
			for i := range src {
				src[i] = x
			}
			f.RoundSliceStochastic(dst, src, rand.NewPCG(rng.Uint64(), 0))
			lo := math.Floor(float64(x)/q) * q
			hi := lo + q
			if lo == float64(x) {
				hi = lo
			}
			sum := 0.0
			for _, y := range dst {
				if float64(y) != lo && float64(y) != hi {
					t.Fatalf("%v: stochastic(%g) = %g, not in {%g, %g}", f, x, y, lo, hi)
				}
				sum += float64(y)
			}
			p := (float64(x) - lo) / q
			if sd := q * math.Sqrt(p*(1-p)/n); math.Abs(sum/n-float64(x)) > 5*sd+1e-9 {
				t.Errorf("%v: stochastic(%g): mean %g", f, x, sum/n)
			}
		}
	}
	f := MustParse("fixed(8,4)")
	inf := float32(math.Inf(1))
	src := []float32{float32(math.NaN()), inf, -inf, 1e9, -1e9, float32(math.Copysign(0, -1))}
	dst := make([]float32, len(src))
	f.RoundSliceStochastic(dst, src, rand.NewPCG(1, 1))
	want := []float32{0, 7.9375, -8, 7.9375, -8, 0}
	for i := range dst {
		if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
			t.Errorf("fixed(8,4) stochastic(%g) = %g, want %g", src[i], dst[i], want[i])
		}
	}
}
