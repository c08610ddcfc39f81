package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// levelData is an r×c matrix of values of every kind: normals over a
// wide range, values rounded to 8 bits, float32 subnormals and zeros,
// and (if special) infinities and NaNs.
func levelData(rng *rand.Rand, n int, special bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		switch rng.IntN(8) {
		case 0:
			s[i] = 0
		case 1:
			s[i] = math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal or ±0
		case 2:
			if special && rng.IntN(8) == 0 {
				s[i] = float32([]float64{math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(3)])
			} else {
				s[i] = float32(rng.NormFloat64() * 0x1p100)
			}
		case 3:
			s[i] = float32(math.Ldexp(float64(rng.IntN(32)-16), rng.IntN(40)-20)) // few bits
		default:
			s[i] = float32(rng.NormFloat64())
		}
	}
	return s
}

// TestLevelsAgree runs Gemm (float32 and float64) and the quire GEMM at
// every kernel level this machine runs (up to quant.CPUEnv's cap) and
// checks each against the generic level bit for bit, on matrices of
// every kind of value, both transpositions and sizes off every tile. NaNs
// of the float GEMMs match as NaNs; the quire's bit for bit.
func TestLevelsAgree(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 2))
	formats := []quant.Format{nil, quant.MustParse("posit(8,1)"), quant.MustParse("fp8-e4m3"), quant.MustParse("posit(16,1)")}
	for _, sz := range [][3]int{{1, 1, 1}, {5, 3, 7}, {17, 33, 9}, {64, 70, 33}, {40, 50, 130}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, special := range []bool{false, true} {
			a, b := levelData(rng, m*k, special), levelData(rng, k*n, special)
			c0 := levelData(rng, m*n, false)
			a64, b64, c64 := widen(a), widen(b), widen(c0)
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				lda, ldb := k, n
				if tr[0] {
					lda = m
				}
				if tr[1] {
					ldb = k
				}
				run := func() (s []float32, d []float64, q [][]float32) {
					s = append([]float32(nil), c0...)
					Gemm(tr[0], tr[1], m, n, k, 1.5, a, lda, b, ldb, 0.25, s, n)
					d = append([]float64(nil), c64...)
					Gemm(tr[0], tr[1], m, n, k, -0.75, a64, lda, b64, ldb, 2, d, n)
					var w QuireWorkspace
					for _, f := range formats {
						c := make([]float32, m*n)
						w.Gemm(f, tr[0], tr[1], m, n, k, a, lda, b, ldb, c, n)
						q = append(q, c)
					}
					return s, d, q
				}
				useLevel(levelGeneric)
				ws, wd, wq := run()
				for _, l := range quant.LevelsUpTo(levelTop)[1:] {
					useLevel(l)
					gs, gd, gq := run()
					for i := range ws {
						// A NaN's payload is not the product's: IEEE
						// leaves which input's it carries open.
						if !sameBits(gs[i], ws[i]) {
							t.Fatalf("%v sgemm %v %v, special %v, t %v: c[%d] = %g, generic %g", l, sz, tr, special, tr, i, gs[i], ws[i])
						}
						if math.Float64bits(gd[i]) != math.Float64bits(wd[i]) && !(gd[i] != gd[i] && wd[i] != wd[i]) {
							t.Fatalf("%v dgemm %v, special %v, t %v: c[%d] = %g, generic %g", l, sz, special, tr, i, gd[i], wd[i])
						}
						for j, f := range formats {
							if math.Float32bits(gq[j][i]) != math.Float32bits(wq[j][i]) {
								t.Fatalf("%v quire %v %v, special %v, t %v: c[%d] = %g, generic %g", l, f, sz, special, tr, i, gq[j][i], wq[j][i])
							}
						}
					}
				}
			}
		}
	}
}
