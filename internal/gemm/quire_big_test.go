package gemm

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// bigDot returns op(a)[i]·op(b)[:, j] exactly: every product of two
// float32 values and every sum of them lies between 2^-298 and 2^(256+32)
// in magnitude, which 2048 bits hold without rounding (checked).
func bigDot(tA, tB bool, i, j, k int, a []float32, lda int, b []float32, ldb int) *big.Float {
	sum := new(big.Float).SetPrec(2048)
	p := new(big.Float).SetPrec(2048)
	y := new(big.Float).SetPrec(2048)
	for l := 0; l < k; l++ {
		p.SetFloat64(at(a, tA, i, l, lda))
		y.SetFloat64(at(b, tB, l, j, ldb))
		if p.Mul(p, y).Acc() != big.Exact {
			panic("bigDot: inexact product")
		}
		if sum.Add(sum, p).Acc() != big.Exact {
			panic("bigDot: inexact sum")
		}
	}
	return sum
}

// bigRound rounds the exact value v once to f (nil: to float32). For a
// format it brackets v between the float64 values next to it below and
// above: every rounding boundary of a format of at most 22 bits (a
// midpoint of two of its values, or a power of two) is a float64, so no
// boundary lies strictly between them and f.Round64 gives both the same
// result, which is v's; a v that is a float64 is rounded directly.
func bigRound(f quant.Format, v *big.Float) (float32, error) {
	if f == nil {
		r, _ := v.Float32() // nearest, ties to even, subnormals included
		return r, nil
	}
	down, _ := new(big.Float).SetPrec(53).SetMode(big.ToNegativeInf).Set(v).Float64()
	up, _ := new(big.Float).SetPrec(53).SetMode(big.ToPositiveInf).Set(v).Float64()
	rd, ru := float32(f.Round64(down)), float32(f.Round64(up))
	if math.Float32bits(rd) != math.Float32bits(ru) {
		return 0, fmt.Errorf("%v rounds %g and %g apart (%g, %g)", f, down, up, rd, ru)
	}
	return rd, nil
}

// adversarial returns the test cases of TestQuireBigReference: one-row
// sums built to defeat float32 and float64 summation in both directions
// (the extremes of posit(8,1) side by side, cancellations that leave only
// the smallest term, ties of the final rounding broken by a far tail, and
// long sums), as pairs of a row a and a column b.
func adversarial(rng *rand.Rand) (names []string, as, bs [][]float32) {
	const maxpos, minpos = 0x1p12, 0x1p-12 // posit(8,1)
	add := func(name string, a, b []float32) {
		names, as, bs = append(names, name), append(as, a), append(bs, b)
	}
	add("maxpos²+minpos²", []float32{maxpos, minpos}, []float32{maxpos, minpos})
	add("maxpos²-maxpos²+minpos²", []float32{maxpos, minpos, maxpos}, []float32{maxpos, minpos, -maxpos})
	add("minpos²-only", []float32{maxpos, maxpos, minpos, maxpos}, []float32{maxpos, -maxpos, -minpos, 0})
	add("tie+tail", []float32{1, 1.0 / 32, maxpos, minpos, -maxpos}, []float32{1, 1, maxpos, minpos, maxpos})
	add("tie-tail", []float32{1, 1.0 / 32, maxpos, -minpos, -maxpos}, []float32{1, 1, maxpos, minpos, maxpos})
	// Long: 2048 copies of maxpos², one minpos², then 2048 of -maxpos²:
	// the partial sums reach 2^35 while the sum is 2^-24, 60 bits that
	// neither float64 nor float32 holds. Then alternating signs, and
	// random posit(8,1) codes.
	n := 4097
	a, b := make([]float32, n), make([]float32, n)
	for l := range a {
		a[l], b[l] = maxpos, maxpos
		if l > n/2 {
			b[l] = -maxpos
		}
	}
	a[n/2], b[n/2] = minpos, minpos
	add("long-cancel", a, b)
	a, b = append([]float32(nil), a...), append([]float32(nil), b...)
	for l := range b {
		if l != n/2 {
			b[l] = maxpos * float32(1-2*(l%2))
		}
	}
	add("long-alternating", a, b)
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	for _, k := range []int{3000, 5000} {
		add(fmt.Sprintf("long-codes-%d", k), positData(p81, k, rng, 0), positData(p81, k, rng, 0))
	}
	// Ties of posit(8,1) near 1 (1 + 2^-5) broken by a tail of 2^-24 at
	// the end of a long sum of cancelling large terms.
	m := 2001
	a, b = make([]float32, m), make([]float32, m)
	for l := 0; l < m-3; l++ {
		a[l], b[l] = maxpos, float32(math.Ldexp(1, l%25-12))
		if l%2 == 1 {
			a[l] = -maxpos
			b[l] = b[l-1]
		}
	}
	a[m-3], b[m-3] = 1, 1
	a[m-2], b[m-2] = 1.0/32, 1
	a[m-1], b[m-1] = minpos, minpos
	add("tie-broken-long", a, b)
	a[m-1] = -minpos
	add("tie-broken-long-down", a, b)
	return names, as, bs
}

// TestQuireBigReference checks QuireWorkspace.Gemm and the reference
// kernel at every kernel level against sums computed exactly with
// math/big and rounded once: on the adversarial rows, on the same rows
// laid out as a GEMM whose other rows are random posit(8,1) data (so the
// extreme rows share the GEMM's bands and conversions with ordinary
// ones), and on float32 data of every kind (subnormals, 2^±100, few
// bits).
func TestQuireBigReference(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 7))
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	formats := []quant.Format{nil, p81, quant.MustParse("posit(8,1,scale=4)"), quant.MustParse("fp8-e4m3"), quant.MustParse("posit(16,1)")}
	type gemmCase struct {
		name    string
		m, n, k int
		tA, tB  bool
		a, b    []float32
	}
	var cases []gemmCase
	names, as, bs := adversarial(rng)
	for i := range names {
		k := len(as[i])
		cases = append(cases, gemmCase{names[i], 1, 1, k, false, false, as[i], bs[i]})
		// Row 2 of a 3×5 product (column 3), transposed operands.
		m, n := 3, 5
		a := positData(p81, m*k, rng, 1)
		b := positData(p81, k*n, rng, 0.1)
		for l := 0; l < k; l++ {
			a[l*m+2] = as[i][l] // tA: a is k×m
			b[3*k+l] = bs[i][l] // tB: b is n×k
		}
		cases = append(cases, gemmCase{names[i] + "-in-gemm", m, n, k, true, true, a, b})
	}
	for _, sz := range [][3]int{{4, 5, 70}, {9, 3, 300}} {
		m, n, k := sz[0], sz[1], sz[2]
		cases = append(cases, gemmCase{fmt.Sprintf("float32-%dx%dx%d", m, n, k), m, n, k, false, true,
			levelData(rng, m*k, false), levelData(rng, k*n, false)})
	}
	for _, tc := range cases {
		lda, ldb := tc.k, tc.n
		if tc.tA {
			lda = tc.m
		}
		if tc.tB {
			ldb = tc.k
		}
		exact := make([]*big.Float, tc.m*tc.n)
		for i := 0; i < tc.m; i++ {
			for j := 0; j < tc.n; j++ {
				exact[i*tc.n+j] = bigDot(tc.tA, tc.tB, i, j, tc.k, tc.a, lda, tc.b, ldb)
			}
		}
		for _, f := range formats {
			want := make([]float32, len(exact))
			for i, v := range exact {
				r, err := bigRound(f, v)
				if err != nil {
					t.Fatalf("%s: reference: %v", tc.name, err)
				}
				want[i] = r
			}
			check := func(kind string, got []float32) {
				t.Helper()
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Errorf("%s, %v, %s: c[%d] = %g, exact sum %s rounds to %g",
							tc.name, f, kind, i, got[i], exact[i].Text('g', 20), want[i])
						return
					}
				}
			}
			for l := levelGeneric; l <= levelTop; l++ {
				useLevel(l)
				var w QuireWorkspace
				got := make([]float32, len(want))
				w.Gemm(f, tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.a, lda, tc.b, ldb, got, tc.n)
				check("workspace at "+l.String(), got)
			}
			got := make([]float32, len(want))
			quireGemm(f, tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.a, lda, tc.b, ldb, got, tc.n)
			check("reference kernel", got)
		}
	}
}
