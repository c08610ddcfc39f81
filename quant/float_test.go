package quant

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/x448/float16"
)

// TestFloatPresets checks each preset's parameters and extremes against
// values worked out by hand from the format definitions.
func TestFloatPresets(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		e, m, bias             int
		special                Specials
		overflow               Overflow
		max, minNormal, minSub float64
		sameAs                 string // another name of the same format
		roundIn, roundOut, inf float32
		nanStays               bool
	}{
		{"fp32", 8, 23, 127, SpecialsIEEE, OverflowInf, math.MaxFloat32, 0x1p-126, 0x1p-149, "float(8,23)", 1.1, 1.1, float32(math.Inf(1)), true},
		{"fp16", 5, 10, 15, SpecialsIEEE, OverflowInf, 65504, 0x1p-14, 0x1p-24, "fp(1,5,10)", 65519, 65504, float32(math.Inf(1)), true},
		{"bf16", 8, 7, 127, SpecialsIEEE, OverflowInf, 0x1.fep127, 0x1p-126, 0x1p-133, "float(8,7)", 1.00390625, 1, float32(math.Inf(1)), true},
		{"fp8-e4m3", 4, 3, 7, SpecialsOCP, OverflowSaturate, 448, 0x1p-6, 0x1p-9, "float(4,3,special=ocp)", 0.3, 0.3125, 448, true},
		{"fp8-e5m2", 5, 2, 15, SpecialsIEEE, OverflowInf, 57344, 0x1p-14, 0x1p-16, "fp8-ibm-bwd", 61440, float32(math.Inf(1)), float32(math.Inf(1)), true},
		{"fp8-ibm-fwd", 4, 3, 11, SpecialsFNUZ, OverflowSaturate, 30, 0x1p-10, 0x1p-13, "float(4,3,bias=11,special=fnuz)", 1e6, 30, 30, true},
		{"float(6,9)", 6, 9, 31, SpecialsIEEE, OverflowInf, 0x1.ff8p31, 0x1p-30, 0x1p-39, "fp(1,6,9)", 1 + 0x1p-10, 1, float32(math.Inf(1)), true},
	} {
		f, err := Parse(tc.name)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.name, err)
		}
		g := f.(Float)
		if g.E() != tc.e || g.M() != tc.m || g.Bias() != tc.bias || g.Specials() != tc.special || g.Overflow() != tc.overflow || !g.Subnormals() {
			t.Errorf("%s: got e=%d m=%d bias=%d special=%v overflow=%v subnormals=%v", tc.name, g.E(), g.M(), g.Bias(), g.Specials(), g.Overflow(), g.Subnormals())
		}
		if g.Max() != tc.max || g.MinNormal() != tc.minNormal || g.MinPos() != tc.minSub {
			t.Errorf("%s: max %g, min normal %g, min subnormal %g; want %g, %g, %g", tc.name, g.Max(), g.MinNormal(), g.MinPos(), tc.max, tc.minNormal, tc.minSub)
		}
		if g.Bits() != 1+tc.e+tc.m {
			t.Errorf("%s: Bits() = %d", tc.name, g.Bits())
		}
		if other := MustParse(tc.sameAs); other != f {
			t.Errorf("%s and %s differ: %v vs %v", tc.name, tc.sameAs, f, other)
		}
		if got := f.Round(tc.roundIn); got != tc.roundOut {
			t.Errorf("%s: Round(%g) = %g, want %g", tc.name, tc.roundIn, got, tc.roundOut)
		}
		if got := f.Round(float32(math.Inf(1))); got != tc.inf {
			t.Errorf("%s: Round(+Inf) = %g, want %g", tc.name, got, tc.inf)
		}
		if got := f.Round(float32(math.NaN())); (got != got) != tc.nanStays {
			t.Errorf("%s: Round(NaN) = %g", tc.name, got)
		}
	}
}

// TestFloatOverflowThreshold checks the IEEE rule |x| >= max + ulp/2 -> Inf
// at the float32 neighbours of the threshold, and saturation.
func TestFloatOverflowThreshold(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold float32 // max + ulp/2, by hand
	}{
		{"fp16", 65520}, {"fp8-e5m2", 61440}, {"bf16", 0x1.ffp127}, {"float(4,3)", 248},
	} {
		f := MustParse(tc.name)
		mx := float32(f.(Float).Max())
		below := math.Nextafter32(tc.threshold, 0)
		inf := float32(math.Inf(1))
		for _, c := range []struct{ in, want float32 }{
			{tc.threshold, inf}, {below, mx}, {-tc.threshold, -inf}, {-below, -mx},
			{math.Nextafter32(tc.threshold, inf), inf}, {mx, mx},
		} {
			if got := f.Round(c.in); got != c.want {
				t.Errorf("%s: Round(%g) = %g, want %g", tc.name, c.in, got, c.want)
			}
		}
		sat, _ := NewFloat(f.(Float).E(), f.(Float).M(), WithOverflow(OverflowSaturate))
		if got := sat.Round(tc.threshold * 4); got != mx {
			t.Errorf("%v: Round(%g) = %g, want %g", sat, tc.threshold*4, got, mx)
		}
	}
}

// TestFloatSignedZero checks that the sign of zero is kept (even for
// values flushed or rounded to zero), except by FNUZ formats.
func TestFloatSignedZero(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		name    string
		in      float32
		wantNeg bool
	}{
		{"fp16", negZero, true}, {"fp16", -1e-30, true}, {"fp8-e4m3", -1e-30, true},
		{"float(4,3,subnormals=false)", -0.01, true},
		{"fp8-ibm-fwd", negZero, false}, {"fp8-ibm-fwd", -1e-30, false},
	} {
		got := MustParse(tc.name).Round(tc.in)
		if got != 0 || math.Signbit(float64(got)) != tc.wantNeg {
			t.Errorf("%s: Round(%g) = %g, want %s0", tc.name, tc.in, got, map[bool]string{true: "-", false: "+"}[tc.wantNeg])
		}
	}
}

// TestFloatFlushToZero checks subnormals=false by hand: float(4,3) has
// smallest normal 2^-6; without subnormals values below it flush to 0
// unless they round (on the 4-bit significand grid) up to 2^-6.
func TestFloatFlushToZero(t *testing.T) {
	f := MustParse("float(4,3,subnormals=false)")
	for _, c := range []struct{ in, want float32 }{
		{0x1p-6, 0x1p-6},
		{0x1.fp-7, 0x1p-6}, // the tie 2^-6 - 2^-11 goes to the even 2^-6
		{0x1.efp-7, 0},     // just below the tie: 1.111·2^-7, flushed
		{0x1.cp-7, 0},      // 1.110·2^-7 is on the grid but subnormal
		{0x1p-9, 0},        // a subnormal of float(4,3)
		{0x1.1p-6, 0x1p-6}, // normal rounding above
		{float32(math.SmallestNonzeroFloat32), 0},
	} {
		if got := f.Round(c.in); got != c.want {
			t.Errorf("%v: Round(%g) = %g, want %g", f, c.in, got, c.want)
		}
	}
	// Codes with a zero exponent field read as zero and are never produced.
	if v := f.Decode(0x03); v != 0 {
		t.Errorf("%v: Decode(0x03) = %g, want 0", f, v)
	}
}

func TestFP32Identity(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	src := make([]float32, 1<<16)
	for i := range src {
		src[i] = math.Float32frombits(rng.Uint32())
	}
	src[0], src[1], src[2] = math.Float32frombits(0x7fc00001), math.Float32frombits(0xff800001), math.Float32frombits(0x80000000)
	dst := make([]float32, len(src))
	FP32.RoundSlice(dst, src)
	for i, x := range src {
		if math.Float32bits(dst[i]) != math.Float32bits(x) {
			t.Fatalf("fp32 RoundSlice(%#08x) = %#08x", math.Float32bits(x), math.Float32bits(dst[i]))
		}
		if y := FP32.Round(x); x == x && math.Float32bits(y) != math.Float32bits(x) {
			t.Fatalf("fp32 Round(%#08x) = %#08x", math.Float32bits(x), math.Float32bits(y))
		}
		if x == x && FP32.Encode(x) != math.Float32bits(x) {
			t.Fatalf("fp32 Encode(%#08x) = %#08x", math.Float32bits(x), FP32.Encode(x))
		}
	}
}

// TestFP16VsFloat16 compares fp16 with github.com/x448/float16 on every
// 31st float32 bit pattern (about 1.4e8 inputs; every 7th takes 10 s here).
func TestFP16VsFloat16(t *testing.T) {
	stride := uint64(31)
	if testing.Short() {
		stride = 101
	}
	const batch = 1 << 14
	src := make([]float32, 0, batch)
	dst := make([]float32, batch)
	flush := func() {
		FP16.RoundSlice(dst[:len(src)], src)
		for i, x := range src {
			h := float16.Fromfloat32(x)
			want := h.Float32()
			if !fltSame(dst[i], want) {
				t.Fatalf("fp16 Round(%g [%#08x]) = %g, float16 gives %g", x, math.Float32bits(x), dst[i], want)
			}
			if i%64 == 0 && x == x && FP16.Encode(x) != uint32(h.Bits()) {
				t.Fatalf("fp16 Encode(%g) = %#04x, float16 gives %#04x", x, FP16.Encode(x), h.Bits())
			}
		}
		src = src[:0]
	}
	for b := uint64(0); b < 1<<32; b += stride {
		src = append(src, math.Float32frombits(uint32(b)))
		if len(src) == batch {
			flush()
		}
	}
	flush()
}

// TestFloatScale checks that Scale(f, k) rounds x as f rounds x·2^k, then
// divides by 2^k, and that scales add up and round-trip through names.
func TestFloatScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, name := range []string{"fp8-e4m3", "fp8-e5m2", "fp16", "float(4,3,subnormals=false)", "fp8-ibm-fwd", "bf16"} {
		f := MustParse(name)
		for _, k := range []int{-7, -1, 1, 3, 10} {
			g, err := Scale(f, k)
			if err != nil {
				t.Fatalf("Scale(%v, %d): %v", f, k, err)
			}
			if h := MustParse(g.String()); h != g {
				t.Errorf("Parse(%q) = %v, want %v", g.String(), h, g)
			}
			if back, _ := Scale(g, -k); back != f {
				t.Errorf("Scale(Scale(%v, %d), %d) = %v", f, k, -k, back)
			}
			if g.(Float).Bias() != f.(Float).Bias()+k {
				t.Errorf("Scale(%v, %d) has bias %d", f, k, g.(Float).Bias())
			}
			s := math.Ldexp(1, k)
			for range 2000 {
				x := float32(math.Exp2(rng.Float64()*60-30)) * float32(1-2*rng.IntN(2))
				xs := float64(x) * s
				if math.Abs(xs) > math.MaxFloat32 || math.Abs(xs) < 0x1p-126 {
					continue
				}
				want := float64(f.Round(float32(xs))) / s
				if got := g.Round(x); float64(got) != want && !(math.IsInf(want, 0) && math.IsInf(float64(got), 0)) {
					if float64(float32(want)) == want || math.Abs(want) <= math.MaxFloat32 {
						t.Fatalf("%v: Round(%g) = %g, want %g", g, x, got, want)
					}
				}
			}
		}
	}
	if _, err := Scale(FP16, 600); err == nil {
		t.Error("Scale(fp16, 600): no error")
	}
}

// TestFloatNames checks Parse(f.String()) == f over many parameter sets.
func TestFloatNames(t *testing.T) {
	for _, p := range floatPresets {
		f := MustParse(p.name)
		if MustParse(f.String()) != f {
			t.Errorf("%s: Parse(String()) differs", p.name)
		}
	}
	if s := MustParse("fp8-ibm-bwd").String(); s != "fp8-e5m2" {
		t.Errorf("fp8-ibm-bwd prints as %q", s)
	}
	n := 0
	for e := 1; e <= 8; e++ {
		for m := 0; 1+e+m <= 32; m += 1 + m/4 {
			for _, sp := range []Specials{SpecialsIEEE, SpecialsOCP, SpecialsNone, SpecialsFNUZ} {
				for _, o := range []Overflow{OverflowInf, OverflowSaturate} {
					for _, sub := range []bool{true, false} {
						for _, db := range []int{0, -3, 5} {
							f, err := NewFloat(e, m, WithSpecials(sp), WithOverflow(o), WithSubnormals(sub), WithBias(DefaultBias(e)+db))
							if err != nil {
								continue
							}
							n++
							g, err := Parse(f.String())
							if err != nil || g != f {
								t.Fatalf("Parse(%q) = %v, %v; want %#v", f.String(), g, err, f)
							}
							if fp := "fp(1," + strings.TrimPrefix(f.String(), "float("); strings.HasPrefix(f.String(), "float(") {
								if g, err := Parse(fp); err != nil || g != f {
									t.Fatalf("Parse(%q) = %v, %v; want %v", fp, g, err, f)
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d formats checked", n)
	}
	t.Logf("%d parameter sets round-trip", n)
	// Spelling variants: case, spaces, option order, scale, aliases.
	for _, c := range []struct{ in, want string }{
		{"Float( 4, 3, Special=OCP )", "fp8-e4m3"},
		{"FLOAT(4,3, special = None)", "float(4,3,special=none)"},
		{"float(4,3,overflow=saturate,special=ocp)", "fp8-e4m3"},
		{"float(4,3,special=ocp,bias=7)", "fp8-e4m3"},
		{"float(4,3,special=finite)", "float(4,3,special=none)"},
		{"float(4,3,scale=2)", "float(4,3,bias=9)"},
		{"float(4,3,bias=3,scale=-1)", "float(4,3,bias=2)"},
		{"float(5,10,subnormals=true)", "fp16"},
		{"float(5,2,overflow=sat)", "float(5,2,overflow=saturate)"},
		{"fp(1,8,7)", "bf16"},
	} {
		f, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if f.String() != c.want {
			t.Errorf("Parse(%q) = %v, want %s", c.in, f, c.want)
		}
	}
}

func TestFloatErrors(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"float(0,3)", "exponent bits"},
		{"float(9,3)", "exponent bits"},
		{"float(4,28)", "mantissa bits"},
		{"float(4,-1)", "mantissa bits"},
		{"float(4,0)", "m >= 1"},
		{"float(1,3)", "e >= 2"},
		{"float(1,0,special=ocp)", "no normal"},
		{"float(4,3,special=ocp,overflow=inf)", "needs special=ieee"},
		{"float(4,3,special=none,overflow=inf)", "needs special=ieee"},
		{"float(4,3,bias=1000)", "bias"},
		{"float(4,3,scale=600)", "scale"},
		{"float(4,3,foo=1)", "unknown float option"},
		{"float(4,3,bias)", "name=value"},
		{"float(4,3,bias=x)", "not an integer"},
		{"float(4,3,bias=1,bias=2)", "twice"},
		{"float(4,3,subnormals=maybe)", "subnormals"},
		{"float(4,3,overflow=wrap)", "overflow"},
		{"float(4,3,special=weird)", "special"},
		{"float(4)", "float takes"},
		{"fp(0,4,3)", "fp takes"},
		{"fp(1,4)", "fp takes"},
		{"float(x,3)", "not an integer"},
	} {
		_, err := Parse(c.name)
		var fe FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want a FormatError mentioning %q", c.name, err, c.want)
		}
	}
}

// fltBracket returns the values of f just below and above x (equal if x is
// a value), from the reference grid, ignoring overflow.
func fltBracket(r *refFloat, x float64) (lo, hi float64) {
	a := new(big.Rat).Abs(new(big.Rat).SetFloat64(x))
	E := fltFloorLog2(a)
	if E < 1-r.bias {
		E = 1 - r.bias
		if !r.sub {
			E += r.m // between 0 and the smallest normal
		}
	}
	q := fltPow2(E - r.m)
	qa := new(big.Rat).Quo(a, q)
	k := new(big.Int).Quo(qa.Num(), qa.Denom())
	l := new(big.Rat).Mul(new(big.Rat).SetInt(k), q)
	h := l
	if l.Cmp(a) != 0 {
		h = new(big.Rat).Add(l, q)
	}
	lo, _ = l.Float64()
	hi, _ = h.Float64()
	if x < 0 {
		lo, hi = -hi, -lo
	}
	return lo, hi
}

// TestFloatStochastic checks that stochastic rounding only ever gives the
// two bracketing values, that its mean converges to x, and that it is
// reproducible from the seed.
func TestFloatStochastic(t *testing.T) {
	const n = 4000
	rng := rand.New(rand.NewPCG(15, 16))
	for _, name := range []string{"fp8-e4m3", "fp8-e5m2", "fp16", "bf16", "fp8-ibm-fwd", "float(4,3,subnormals=false)", "float(6,9)", "float(3,0,special=none)"} {
		f := MustParse(name).(Float)
		r := newRefFloat(f)
		var xs []float32
		for range 30 {
			x := float32(math.Exp2(rng.Float64()*float64(f.emax()-f.emin()+6) + float64(f.emin()-5)))
			if float64(x) < f.Max() {
				xs = append(xs, x, -x)
			}
		}
		xs = append(xs, float32(f.MinPos()/3), float32(f.MinNormal()*0.6))
		src := make([]float32, n)
		dst := make([]float32, n)
		for _, x := range xs {
			for i := range src {
				src[i] = x
			}
			f.RoundSliceStochastic(dst, src, rand.NewPCG(uint64(math.Float32bits(x)), 1))
			lo, hi := fltBracket(r, float64(x))
			sum := 0.0
			for _, y := range dst {
				if float64(y) != lo && float64(y) != hi {
					t.Fatalf("%v: stochastic(%g) = %g, not in {%g, %g}", f, x, y, lo, hi)
				}
				sum += float64(y)
			}
			mean := sum / n
			p := (float64(x) - lo) / (hi - lo)
			sd := (hi - lo) * math.Sqrt(p*(1-p)/n)
			if lo != hi && math.Abs(mean-float64(x)) > 5*sd+1e-12*math.Abs(float64(x)) {
				t.Errorf("%v: stochastic(%g): mean %g, |error| %g > 5σ = %g", f, x, mean, math.Abs(mean-float64(x)), 5*sd)
			}
		}
		// Reproducible: same seed, same bits.
		a := make([]float32, len(xs))
		b := make([]float32, len(xs))
		f.RoundSliceStochastic(a, xs, rand.NewPCG(1, 2))
		f.RoundSliceStochastic(b, xs, rand.NewPCG(1, 2))
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("%v: stochastic rounding not reproducible", f)
			}
		}
	}
}

// TestFloatStochasticSpecials checks NaN, ±Inf, ±0 and saturation.
func TestFloatStochasticSpecials(t *testing.T) {
	inf := float32(math.Inf(1))
	src := []float32{float32(math.NaN()), inf, -inf, 0, float32(math.Copysign(0, -1)), 1e30, -1e30}
	dst := make([]float32, len(src))
	FP8E4M3.RoundSliceStochastic(dst, src, rand.NewPCG(1, 1))
	want := []float32{float32(math.NaN()), 448, -448, 0, float32(math.Copysign(0, -1)), 448, -448}
	for i := range dst {
		if !fltSame(dst[i], want[i]) {
			t.Errorf("fp8-e4m3 stochastic(%g) = %g, want %g", src[i], dst[i], want[i])
		}
	}
	FP8E5M2.RoundSliceStochastic(dst, src, rand.NewPCG(1, 1))
	want = []float32{float32(math.NaN()), inf, -inf, 0, float32(math.Copysign(0, -1)), inf, -inf}
	for i := range dst {
		if !fltSame(dst[i], want[i]) {
			t.Errorf("fp8-e5m2 stochastic(%g) = %g, want %g", src[i], dst[i], want[i])
		}
	}
}

func TestFloatLengthPanics(t *testing.T) {
	for _, fn := range []func(){
		func() { FP16.RoundSlice(make([]float32, 2), make([]float32, 3)) },
		func() { FP16.RoundSliceStochastic(make([]float32, 2), make([]float32, 3), rand.NewPCG(1, 1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on length mismatch")
				}
			}()
			fn()
		}()
	}
}

// TestFloatInPlace checks RoundSlice with dst == src across the vector and
// tail paths.
func TestFloatInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	// bias=140 puts the smallest normal below float32's: float32
	// subnormals take the exact path after the kernel.
	for _, f := range []Format{FP8E4M3, MustParse("float(5,2,bias=140)"), MustParse("float(8,3,bias=135,subnormals=false)")} {
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 1000, 1500} {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 100)
				if rng.IntN(3) == 0 {
					src[i] = math.Float32frombits(rng.Uint32() & 0x807fffff) // float32 subnormal
				}
			}
			want := make([]float32, n)
			for i, x := range src {
				want[i] = f.Round(x)
			}
			f.RoundSlice(src, src)
			for i := range src {
				if !fltSame(src[i], want[i]) {
					t.Fatalf("%v, n=%d: in-place [%d] = %g, want %g", f, n, i, src[i], want[i])
				}
			}
		}
	}
}

// BenchmarkFloatKernel runs the portable and the vector float kernels at a
// cache-resident and a memory-bound size, on normal inputs.
//
//	go test ./quant -run '^$' -bench FloatKernel -benchtime 200x -cpu 1
func BenchmarkFloatKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 0))
	for _, n := range []int{1 << 12, 1 << 20} {
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(rng.NormFloat64())
		}
		dst := make([]float32, n)
		for _, name := range []string{"fp8-e4m3", "fp16", "fp8-e5m2", "fp8-ibm-fwd"} {
			f := MustParse(name).(Float)
			k, _ := f.kernel()
			for _, p := range []struct {
				path  string
				round func(dst, src []float32)
			}{
				{"go", k.roundSliceGo},
				{"RoundSlice", f.RoundSlice},
				{"stochastic", func(dst, src []float32) { f.RoundSliceStochastic(dst, src, rand.NewPCG(1, 1)) }},
			} {
				b.Run(fmt.Sprintf("%s/%s/%d", name, p.path, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						p.round(dst, src)
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
				})
			}
		}
	}
}

// TestFloatStochasticPaths checks that the bit path of RoundSliceStochastic
// makes the same decisions as the general path for the same random bits.
func TestFloatStochasticPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, f := range fltFormats(t) {
		xs := fltProbes(newRefFloat(f), rng, 500)
		if len(xs) > 20000 {
			xs = xs[:20000]
		}
		dst := make([]float32, len(xs))
		f.RoundSliceStochastic(dst, xs, rand.NewPCG(5, 5))
		src := rand.NewPCG(5, 5)
		for i, x := range xs {
			if want := float32(f.roundStoch64(float64(x), src.Uint64())); !fltSame(dst[i], want) {
				t.Fatalf("%v: stochastic(%g) = %g, general path %g", f, x, dst[i], want)
			}
		}
	}
}
