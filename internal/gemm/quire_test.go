package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// positData returns n values of format p: random codes (the whole range),
// or values of a normal sample of the given spread rounded to p.
func positData(p quant.Posit, n int, rng *rand.Rand, spread float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		if spread == 0 {
			c := uint32(rng.IntN(1 << p.N()))
			if c == p.NaR() {
				c = 0
			}
			s[i] = float32(p.Decode(c))
		} else {
			s[i] = p.Round(float32(rng.NormFloat64() * spread))
		}
	}
	return s
}

// TestQuireWorkspaceMatchesReference checks the DGEMM-based exact kernel
// against the superaccumulator kernel bit for bit, on data that fit one
// DGEMM and data that need the operands split into bands.
func TestQuireWorkspaceMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	p82 := quant.MustParse("posit(8,2)").(quant.Posit)
	p16 := quant.MustParse("posit(16,1)").(quant.Posit)
	var w QuireWorkspace
	for _, tc := range []struct {
		name       string
		pa, pb     quant.Posit
		sa, sb     float64 // 0: random codes over the whole range
		m, n, k    int
		tA, tB     bool
		out        quant.Format
		wantSplits bool
	}{
		{"narrow", p81, p81, 1, 0.05, 7, 9, 33, false, false, p81, false},
		{"narrow-tt", p81, p81, 1, 0.05, 5, 6, 40, true, true, nil, false},
		{"fullrange-p81", p81, p81, 0, 0, 6, 7, 50, false, true, p81, true},
		{"fullrange-p82", p82, p82, 0, 0, 4, 5, 30, true, false, nil, true},
		{"p16-codes", p16, p16, 0, 0, 3, 4, 20, false, false, quant.MustParse("posit(16,1)"), true},
		{"mixed", p82, p81, 0, 1, 8, 3, 64, false, false, p81, true},
		{"long", p81, p81, 2, 2, 2, 3, 5000, false, false, p81, false},
	} {
		a := positData(tc.pa, tc.m*tc.k, rng, tc.sa)
		b := positData(tc.pb, tc.k*tc.n, rng, tc.sb)
		lda, ldb := tc.k, tc.n
		if tc.tA {
			lda = tc.m
		}
		if tc.tB {
			ldb = tc.k
		}
		got := make([]float32, tc.m*tc.n)
		want := make([]float32, tc.m*tc.n)
		w.Gemm(tc.out, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, got, tc.n)
		quireGemm(tc.out, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, want, tc.n)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Errorf("%s: c[%d] = %g, reference %g", tc.name, i, got[i], want[i])
				break
			}
		}
		ra, ca := tc.m, tc.k
		if tc.tA {
			ra, ca = tc.k, tc.m
		}
		rb, cb := tc.k, tc.n
		if tc.tB {
			rb, cb = tc.n, tc.k
		}
		w.ha.scan(a, ra, ca, lda)
		w.hb.scan(b, rb, cb, ldb)
		ba, bb := partition(&w.ha, &w.hb, 53-bitsLen(tc.k-1))
		if split := len(ba)*len(bb) != 1; split != tc.wantSplits {
			t.Errorf("%s: %d×%d bands, want split=%v", tc.name, len(ba), len(bb), tc.wantSplits)
		}
	}
}

func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

// TestQuireExact checks the reference kernel on sums whose exact value is
// known: cancellation that float32 and float64 summation both get wrong,
// and ties of the final rounding.
func TestQuireExact(t *testing.T) {
	p81 := quant.MustParse("posit(8,1)")
	for _, tc := range []struct {
		name string
		a, b []float32
		f    quant.Format
		want float32
	}{
		// 2^60 + 1 - 2^60 = 1 exactly; float64 summation in this order gives 0.
		{"cancel", []float32{0x1p30, 1, -0x1p30}, []float32{0x1p30, 1, 0x1p30}, nil, 1},
		// 2^-40 survives next to 2^40 - 2^40.
		{"tiny", []float32{0x1p20, 0x1p-20, 0x1p20}, []float32{0x1p20, 0x1p-20, -0x1p20}, nil, 0x1p-40},
		// 1 + 1/32 lies halfway between posit(8,1)'s 1 and 1.0625 (bit
		// pattern tie): ties to even gives 1; one extra 2^-60 tips it up.
		{"tie", []float32{1, 1.0 / 32}, []float32{1, 1}, p81, 1},
		{"tie-broken", []float32{1, 1.0 / 32, 0x1p-30}, []float32{1, 1, 0x1p-30}, p81, 1.0625},
		// Sums outside float32's range saturate to maxpos (2^12) and
		// minpos (2^-12) of posit(8,1).
		{"huge", []float32{0x1p100, 1}, []float32{0x1p100, 1}, p81, 0x1p12},
		{"tiny", []float32{0x1p-100, -0x1p-100}, []float32{0x1p-100, 0x1p-101}, p81, 0x1p-12},
		// NaN and Inf: the IEEE result.
		{"inf", []float32{float32(math.Inf(1)), 1}, []float32{1, 1}, nil, float32(math.Inf(1))},
	} {
		for _, fast := range []bool{false, true} {
			c := make([]float32, 1)
			if fast {
				var w QuireWorkspace
				w.Gemm(tc.f, false, false, 1, 1, len(tc.a), tc.a, len(tc.a), tc.b, 1, c, 1)
			} else {
				quireGemm(tc.f, false, false, 1, 1, len(tc.a), tc.a, len(tc.a), tc.b, 1, c, 1)
			}
			if c[0] != tc.want {
				t.Errorf("%s (fast %v): %g, want %g", tc.name, fast, c[0], tc.want)
			}
		}
	}
	// float64 data: the product error term is kept.
	a, b := []float64{1 + 0x1p-30, -1}, []float64{1 + 0x1p-30, 1 + 0x1p-29}
	c := make([]float64, 1)
	QuireGemm[float64](nil, false, false, 1, 1, 2, a, 2, b, 1, c, 1)
	if c[0] != 0x1p-60 { // (1+2^-30)² - (1+2^-29) = 2^-60
		t.Errorf("float64: %g, want 2^-60", c[0])
	}
}

// TestPerOpGemm checks the per-op kernel against a direct loop that
// rounds each product and each partial sum with the format.
func TestPerOpGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	a := positData(p81, 4*30, rng, 1)
	b := positData(p81, 30*3, rng, 1)
	c := make([]float32, 4*3)
	PerOpGemm(quant.Format(p81), false, false, 4, 3, 30, a, 30, b, 3, c, 3)
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			// Products and sums of two posit(8,1) values are exact in
			// float64, so one Round64 each is the definition.
			var s float64
			for l := 0; l < 30; l++ {
				p := p81.Round64(float64(a[i*30+l]) * float64(b[l*3+j]))
				if l == 0 {
					s = p
				} else {
					s = p81.Round64(s + p)
				}
			}
			if float64(c[i*3+j]) != s {
				t.Errorf("c[%d][%d] = %g, want %g", i, j, c[i*3+j], s)
			}
		}
	}
	// Rounding every partial sum loses what a quire keeps: 1 + 16 × 2^-6
	// stays 1 in posit(8,1) (each addition is below half an ulp), while
	// the exact sum 1.25 is representable.
	ones := make([]float32, 17)
	small := make([]float32, 17)
	ones[0], small[0] = 1, 1
	for l := 1; l < 17; l++ {
		ones[l], small[l] = 1.0/64, 1
	}
	PerOpGemm(quant.Format(p81), false, false, 1, 1, 17, ones, 17, small, 1, c[:1], 1)
	if c[0] != 1 {
		t.Errorf("per-op sum = %g, want 1", c[0])
	}
	QuireGemm(quant.Format(p81), false, false, 1, 1, 17, ones, 17, small, 1, c[:1], 1)
	if c[0] != 1.25 {
		t.Errorf("quire sum = %g, want 1.25", c[0])
	}
}

// TestPerOpWorkspaceMatchesReference checks the table-driven per-op kernel
// against the reference kernel bit for bit.
func TestPerOpWorkspaceMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	p82s, _ := quant.Scale(quant.MustParse("posit(8,2)"), 2)
	var w PerOpWorkspace
	floats := func(n int, f quant.Format, spread float64) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = f.Round(float32(rng.NormFloat64() * spread))
			if i%7 == 0 {
				s[i] = 0
			}
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		a, b    func(n int) []float32
		f       quant.Format
		m, n, k int
		tA, tB  bool
	}{
		{"p81-codes", func(n int) []float32 { return positData(p81, n, rng, 0) }, func(n int) []float32 { return positData(p81, n, rng, 0) }, p81, 5, 9, 40, false, false},
		{"p81-normal-tt", func(n int) []float32 { return positData(p81, n, rng, 1) }, func(n int) []float32 { return positData(p81, n, rng, 0.1) }, p81, 6, 7, 33, true, true},
		{"p82-scaled", func(n int) []float32 { return positData(p81, n, rng, 2) }, func(n int) []float32 { return positData(p81, n, rng, 0.5) }, p82s, 3, 13, 50, false, true},
		{"e4m3", func(n int) []float32 { return floats(n, quant.MustParse("fp8-e4m3"), 30) }, func(n int) []float32 { return floats(n, quant.MustParse("fp8-e4m3"), 30) }, quant.MustParse("fp8-e4m3"), 4, 6, 64, true, false},
		{"e5m2-inf", func(n int) []float32 { return floats(n, quant.MustParse("fp8-e5m2"), 300) }, func(n int) []float32 { return floats(n, quant.MustParse("fp8-e5m2"), 300) }, quant.MustParse("fp8-e5m2"), 4, 5, 64, false, false},
		{"p81-zeros-a", func(n int) []float32 { return withZeros(positData(p81, n, rng, 1), rng) }, func(n int) []float32 { return positData(p81, n, rng, 0.3) }, p81, 9, 11, 37, false, false},
		{"p81-zeros-b", func(n int) []float32 { return positData(p81, n, rng, 1) }, func(n int) []float32 { return withZeros(positData(p81, n, rng, 0.3), rng) }, p81, 10, 17, 29, true, false},
		{"float32-operands", func(n int) []float32 { return floats(n, quant.MustParse("posit(16,1)"), 1) }, func(n int) []float32 { return positData(p81, n, rng, 1) }, p81, 3, 5, 400, false, false},
	} {
		a, b := tc.a(tc.m*tc.k), tc.b(tc.k*tc.n)
		lda, ldb := tc.k, tc.n
		if tc.tA {
			lda = tc.m
		}
		if tc.tB {
			ldb = tc.k
		}
		got := make([]float32, tc.m*tc.n)
		want := make([]float32, tc.m*tc.n)
		fast := w.setFormat(tc.f) && w.pack(tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb)
		if fast != (tc.name != "float32-operands") {
			t.Errorf("%s: table path used: %v", tc.name, fast)
		}
		w.Gemm(tc.f, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, got, tc.n)
		perOpGemm(tc.f, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, want, tc.n)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Errorf("%s: c[%d] = %g, reference %g", tc.name, i, got[i], want[i])
				break
			}
		}
	}
}

// withZeros sets about half of s to zero, as ReLU does.
func withZeros(s []float32, rng *rand.Rand) []float32 {
	for i := range s {
		if rng.IntN(2) == 0 {
			s[i] = 0
		}
	}
	return s
}

// TestQuireRows checks the AVX-512 row loops of convertRange and
// combineOne against the Go ones, bit for bit, on every tail length and on
// zeros, subnormals, Inf and NaN, and the Go ones against their
// definitions.
func TestQuireRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	f32 := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal or ±0
		case 2:
			return float32([]float64{math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(3)])
		}
		return math.Float32frombits(rng.Uint32())
	}
	f64 := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		}
		return rng.NormFloat64() * math.Exp2(float64(rng.IntN(300)-150))
	}
	for n := 1; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			s := make([]float32, n)
			for j := range s {
				s[j] = f32()
			}
			d := make([]float64, n)
			top, key := convertRow(d, s)
			wantTop, wantKey := uint32(0), uint32(1<<32-1)
			for j, x := range s {
				if math.Float64bits(d[j]) != math.Float64bits(float64(x)) {
					t.Fatalf("convertRow: d[%d] = %g, want %g", j, d[j], x)
				}
				b := math.Float32bits(x) &^ (1 << 31)
				wantTop = max(wantTop, b)
				k := uint32(keyNone + 200)
				if b != 0 && b < 0x7f800000 {
					_, lo := expOf(b)
					k = uint32(lo + 150)
					if b < 1<<23 {
						k-- // a subnormal's lowest bit counts one lower
					}
				}
				wantKey = min(wantKey, k)
			}
			if top != wantTop || (key < keyNone) != (wantKey < keyNone) || (key < keyNone && key != wantKey) {
				t.Fatalf("convertRow(%v) = %#x, %d; want %#x, %d", s, top, key, wantTop, wantKey)
			}
			if hasQuireAVX2 && n >= 8 {
				m := n &^ 7
				d2 := make([]float64, n+1)
				top2, key2 := convertRowAVX2(&d2[0], &s[0], m)
				key2 -= convertKeyBias
				t3, k3 := convertRow(d2[m:n], s[m:])
				top2, key2 = max(top2, t3), min(key2, k3)
				if top2 != top || key2 != key && (key2 < keyNone || key < keyNone) {
					t.Fatalf("convertRowAVX2(%v) = %#x, %d; Go %#x, %d", s, top2, key2, top, key)
				}
				for j := range d {
					if math.Float64bits(d2[j]) != math.Float64bits(d[j]) {
						t.Fatalf("convertRowAVX2: d[%d] = %g, want %g", j, d2[j], d[j])
					}
				}
				if d2[n] != 0 {
					t.Fatalf("convertRowAVX2 wrote past n = %d", n)
				}
			}
			if hasQuireAVX512 {
				d2 := make([]float64, n+1)
				top2, key2 := convertRowAVX512(&d2[0], &s[0], n)
				key2 -= convertKeyBias
				if top2 != top || key2 != key && (key2 < keyNone || key < keyNone) {
					t.Fatalf("convertRowAVX512(%v) = %#x, %d; Go %#x, %d", s, top2, key2, top, key)
				}
				for j := range d {
					if math.Float64bits(d2[j]) != math.Float64bits(d[j]) {
						t.Fatalf("convertRowAVX512: d[%d] = %g, want %g", j, d2[j], d[j])
					}
				}
				if d2[n] != 0 {
					t.Fatalf("convertRowAVX512 wrote past n = %d", n)
				}
			}

			x := make([]float64, n)
			for j := range x {
				x[j] = f64()
			}
			r := make([]float32, n)
			emin, emax := toOddRow(r, x)
			wantMin, wantMax := uint64(1<<64-1), uint64(0)
			for j, v := range x {
				if e := math.Float64bits(v) >> 52 & 0x7ff; v != 0 {
					wantMin, wantMax = min(wantMin, e), max(wantMax, e)
				}
				if a := math.Abs(v); a >= 0x1p-126 && a < 0x1p127 && math.Float32bits(r[j]) != math.Float32bits(toOdd32(v)) {
					t.Fatalf("toOddRow: %g gives %g, want %g", v, r[j], toOdd32(v))
				}
			}
			if emin != wantMin || emax != wantMax {
				t.Fatalf("toOddRow: exponents %d, %d; want %d, %d", emin, emax, wantMin, wantMax)
			}
			if hasQuireAVX2 && n >= 4 {
				r2 := make([]float32, n+1)
				emin2, emax2 := combineRowAVX2Go(r2[:n], x)
				if emin2 != emin || emax2 != emax {
					t.Fatalf("combineRowAVX2: exponents %d, %d; Go %d, %d", emin2, emax2, emin, emax)
				}
				for j, v := range x {
					if a := math.Abs(v); a >= 0x1p-126 && a < 0x1p127 && math.Float32bits(r2[j]) != math.Float32bits(r[j]) {
						t.Fatalf("combineRowAVX2: %g gives %g, Go %g", v, r2[j], r[j])
					}
				}
				if r2[n] != 0 {
					t.Fatalf("combineRowAVX2 wrote past n = %d", n)
				}
			}
			if hasQuireAVX512 {
				r2 := make([]float32, n+1)
				emin2, emax2 := combineRowAVX512(&r2[0], &x[0], n)
				if emin2 != emin || emax2 != emax {
					t.Fatalf("combineRowAVX512: exponents %d, %d; Go %d, %d", emin2, emax2, emin, emax)
				}
				for j, v := range x {
					if a := math.Abs(v); a >= 0x1p-126 && a < 0x1p127 && math.Float32bits(r2[j]) != math.Float32bits(r[j]) {
						t.Fatalf("combineRowAVX512: %g gives %g, Go %g", v, r2[j], r[j])
					}
				}
				if r2[n] != 0 {
					t.Fatalf("combineRowAVX512 wrote past n = %d", n)
				}
			}
		}
	}
}
