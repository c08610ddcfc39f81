package gemm

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/positgan/positgan/quant"
)

// truncE4M3 is FP8 E4M3 with a deliberately non-IEEE adder that truncates
// the exact sum towards zero (saturating at ±448); products round to
// nearest, as E4M3 does. It is registered as "gemmtest-trunc".
type truncE4M3 struct{ f quant.Format }

func (truncE4M3) String() string               { return "gemmtest-trunc" }
func (truncE4M3) Bits() int                    { return 8 }
func (t truncE4M3) Encode(x float32) uint32    { return t.f.Encode(x) }
func (t truncE4M3) Decode(c uint32) float64    { return t.f.Decode(c) }
func (t truncE4M3) Mul64(x, y float64) float64 { return t.f.Round64(x * y) } // float32 operands: exact product

// Add64 returns the value of largest magnitude not above |x+y|, with the
// sign of x+y. Sums of float32s are exact in float64 here.
func (t truncE4M3) Add64(x, y float64) float64 {
	s := x + y
	if s != s {
		return s
	}
	// Non-negative codes below NaN (0x7f) ascend with their values: the
	// first one above |s|, less one.
	c := sort.Search(0x7f, func(c int) bool { return t.f.Decode(uint32(c)) > math.Abs(s) })
	return math.Copysign(t.f.Decode(uint32(c-1)), s)
}

func init() {
	// Registered once per test binary, so that the test goes through
	// quant.Parse as a user's format would.
	err := quant.Register("gemmtest-trunc", func(args []string) (quant.Codec, error) {
		return truncE4M3{quant.MustParse("fp8-e4m3")}, nil
	})
	if err != nil {
		panic(err)
	}
}

// formatOnly hides a Format's own arithmetic, so that ArithmeticOf gives
// it the default one: the exact result rounded once with Round64.
type formatOnly struct{ quant.Format }

// TestPerOpFormatArithmetic checks that a registered format's own Add64
// and Mul64 decide per-op results, in the table-driven kernel and the
// reference kernels alike, exactly as a direct loop over them does, and
// that they differ from the plain format's.
func TestPerOpFormatArithmetic(t *testing.T) {
	f, err := quant.Parse("gemmtest-trunc")
	if err != nil {
		t.Fatal(err)
	}
	ar, ok := quant.ArithmeticOf(f).(truncE4M3)
	if !ok {
		t.Fatalf("ArithmeticOf(%v) is %T, want the registered codec", f, quant.ArithmeticOf(f))
	}
	e4m3 := quant.MustParse("fp8-e4m3")
	rng := rand.New(rand.NewPCG(21, 22))
	data := func(n int, spread float64) []float32 {
		s := make([]float32, n)
		for i := range s {
			if rng.IntN(4) > 0 { // a quarter zeros, as after ReLU
				s[i] = e4m3.Round(float32(rng.NormFloat64() * spread))
			}
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		m, n, k int
		tA, tB  bool
		sa, sb  float64
	}{
		{"nn", 5, 7, 40, false, false, 2, 1},
		{"tt", 6, 3, 33, true, true, 1, 0.5},
		{"nt-wide", 3, 9, 64, false, true, 8, 4},
	} {
		a, b := data(tc.m*tc.k, tc.sa), data(tc.k*tc.n, tc.sb)
		lda, ldb := tc.k, tc.n
		if tc.tA {
			lda = tc.m
		}
		if tc.tB {
			ldb = tc.k
		}
		at32 := func(s []float32, tr bool, r, col, ld int) float64 { return at(s, tr, r, col, ld) }
		want := make([]float32, tc.m*tc.n)
		for i := range tc.m {
			for j := range tc.n {
				var s float64
				for l := range tc.k {
					p := ar.Mul64(at32(a, tc.tA, i, l, lda), at32(b, tc.tB, l, j, ldb))
					if l == 0 {
						s = p
					} else {
						s = ar.Add64(s, p)
					}
				}
				want[i*tc.n+j] = float32(s)
			}
		}
		var w PerOpWorkspace
		if !w.setFormat(f) || !w.pack(tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb) {
			t.Fatalf("%s: the table-driven kernel is not used", tc.name)
		}
		table := make([]float32, len(want))
		w.Gemm(f, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, table, tc.n)
		ref := make([]float32, len(want))
		perOpGemm(f, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, ref, tc.n)
		a64, b64, c64 := widen(a), widen(b), make([]float64, len(want))
		PerOpGemm(f, tc.tA, tc.tB, tc.m, tc.n, tc.k, a64, lda, b64, ldb, c64, tc.n)
		plain := make([]float32, len(want))
		PerOpGemm(e4m3, tc.tA, tc.tB, tc.m, tc.n, tc.k, a, lda, b, ldb, plain, tc.n)
		differ := 0
		for i := range want {
			if !sameBits(table[i], want[i]) || !sameBits(ref[i], want[i]) || !sameBits(float32(c64[i]), want[i]) {
				t.Errorf("%s: c[%d]: table %g, reference %g, float64 %g; the format's arithmetic gives %g", tc.name, i, table[i], ref[i], c64[i], want[i])
				break
			}
			if !sameBits(plain[i], want[i]) {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("%s: a truncating adder gave the same bits as E4M3's own rounding everywhere", tc.name)
		}
	}
}

// TestPerOpPositArithmetic checks that per-op GEMMs through posits' own
// arithmetic (Posit.Add64, Posit.Mul64) give the same bits as the default
// arithmetic (the exact result rounded once with Round64): posit
// arithmetic is correctly rounded. Table-driven and reference kernels,
// float32 and float64 data, operands that are not posits of the format.
func TestPerOpPositArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	p82s, _ := quant.Scale(quant.MustParse("posit(8,2)"), 2)
	p16 := quant.MustParse("posit(16,1)").(quant.Posit)
	if _, ok := quant.ArithmeticOf(p81).(quant.Posit); !ok {
		t.Fatalf("posits do not use their own arithmetic")
	}
	for _, tc := range []struct {
		name    string
		f       quant.Format
		a, b    []float32
		m, n, k int
	}{
		{"p81", p81, positData(p81, 6*50, rng, 1), positData(p81, 50*7, rng, 0.2), 6, 7, 50},
		{"p82-scaled", p82s, positData(p81, 4*40, rng, 3), positData(p81, 40*5, rng, 0.5), 4, 5, 40},
		{"p81-p16-operands", p81, positData(p16, 3*300, rng, 1), positData(p81, 300*4, rng, 1), 3, 4, 300},
		{"p16", p16, positData(p16, 5*64, rng, 1), positData(p16, 64*6, rng, 0.1), 5, 6, 64},
	} {
		own, def := make([]float32, tc.m*tc.n), make([]float32, tc.m*tc.n)
		PerOpGemm(tc.f, false, false, tc.m, tc.n, tc.k, tc.a, tc.k, tc.b, tc.n, own, tc.n)
		PerOpGemm(quant.Format(formatOnly{tc.f}), false, false, tc.m, tc.n, tc.k, tc.a, tc.k, tc.b, tc.n, def, tc.n)
		own64, def64 := make([]float64, len(own)), make([]float64, len(own))
		a64, b64 := widen(tc.a), widen(tc.b)
		PerOpGemm(tc.f, false, false, tc.m, tc.n, tc.k, a64, tc.k, b64, tc.n, own64, tc.n)
		PerOpGemm(quant.Format(formatOnly{tc.f}), false, false, tc.m, tc.n, tc.k, a64, tc.k, b64, tc.n, def64, tc.n)
		if !slices.Equal(own, def) || !slices.Equal(own64, def64) || !slices.Equal(own64, widen(own)) {
			t.Errorf("%s: posit arithmetic and the default differ:\n own %v\n default %v\n own64 %v\n default64 %v", tc.name, own, def, own64, def64)
		}
	}
}

func widen(s []float32) []float64 {
	d := make([]float64, len(s))
	for i, v := range s {
		d[i] = float64(v)
	}
	return d
}

func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}
