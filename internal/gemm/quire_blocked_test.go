//go:build !openblas

package gemm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/positgan/positgan/quant"
)

// TestQuireBlocked checks QuireWorkspace.Gemm where it blocks C and the
// sum (quire_blocked.go) against the reference kernel bit for bit, at
// every kernel level, on one and two goroutines, for every transposition:
// on posit(8,1) data that fit one band (blocked's result), on data that
// need bands (blocked gives up after some pieces and Gemm starts over),
// and with a NaN or an Inf in the last piece.
func TestQuireBlocked(t *testing.T) {
	defer useLevel(levelTop)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(30, 11))
	p81 := quant.MustParse("posit(8,1)").(quant.Posit)
	for _, tc := range []struct {
		name           string
		m, n, k        int
		sa, sb         float64 // spreads; 0: random codes (bands needed)
		special        float32 // put in the last piece of op(A) if nonzero
		blocks, pieces bool    // what the plan must cut (one goroutine)
	}{
		{"pieces", 37, 700, 300, 1, 0.05, 0, false, true},
		{"blocks+pieces", 50, 1000, 200, 1, 0.05, 0, true, true},
		{"blocks", 64, 2000, 40, 1, 0.05, 0, true, false},
		{"bands", 20, 600, 300, 0, 0, 0, false, true},
		{"two-goroutines", 64, 512, 600, 1, 0.05, 0, false, true}, // two blocks on 2
		{"nan", 30, 1200, 100, 1, 0.05, float32(math.NaN()), true, true},
		{"inf", 30, 1200, 100, 1, 0.05, float32(math.Inf(-1)), true, true},
	} {
		runtime.GOMAXPROCS(1)
		plan, ok := planBlocks(tc.m, tc.n, tc.k)
		if !ok || (plan.nblk > 1) != tc.blocks || (plan.kc < tc.k) != tc.pieces {
			t.Fatalf("%s: plan %+v (%v), want blocks %v, pieces %v", tc.name, plan, ok, tc.blocks, tc.pieces)
		}
		a := positData(p81, tc.m*tc.k, rng, tc.sa)
		b := positData(p81, tc.k*tc.n, rng, tc.sb)
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			tA, tB := tr[0], tr[1]
			lda, ldb := tc.k, tc.n
			if tA {
				lda = tc.m
			}
			if tB {
				ldb = tc.k
			}
			if tc.special != 0 {
				a = append([]float32(nil), a...)
				i, l := tc.m/2, tc.k-2
				if tA {
					a[l*lda+i] = tc.special
				} else {
					a[i*lda+l] = tc.special
				}
			}
			formats := []quant.Format{p81}
			if !tA && !tB {
				formats = append(formats, nil)
			}
			for _, f := range formats {
				want := make([]float32, tc.m*tc.n)
				quireGemm(f, tA, tB, tc.m, tc.n, tc.k, a, lda, b, ldb, want, tc.n)
				for l := levelGeneric; l <= levelTop; l++ {
					useLevel(l)
					for _, procs := range []int{1, 2} {
						runtime.GOMAXPROCS(procs)
						var w QuireWorkspace
						got := make([]float32, len(want))
						w.Gemm(f, tA, tB, tc.m, tc.n, tc.k, a, lda, b, ldb, got, tc.n)
						for i := range want {
							g, x := got[i], want[i]
							if math.Float32bits(g) != math.Float32bits(x) && !(f == nil && g != g && x != x) {
								t.Errorf("%s tA=%v tB=%v %v at %v on %d: c[%d] = %g, reference %g",
									tc.name, tA, tB, f, l, procs, i, g, x)
								break
							}
						}
					}
				}
			}
		}
	}
}
