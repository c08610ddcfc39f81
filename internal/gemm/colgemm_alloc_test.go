//go:build !openblas

package gemm

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/positgan/positgan/internal/allocs"
	"github.com/positgan/positgan/quant"
)

// The products that pack op(B) from images or round its panels
// (GemmCols, GemmColsT, GemmBlocked) allocate nothing once warm, on one
// core and split across two: they run at every convolution and, for
// block formats, every Linear layer of a training step. (The OpenBLAS
// build builds the column matrix instead, and is not held to this.)
func TestColsAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(5, 6))
	g, err := ConvGeom(16, 14, 14, 4, 4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	n, m := 16, 32
	x := spread[float32](rng, n*g.C*g.H*g.W)
	a := spread[float32](rng, m*n*g.Cols())
	c := make([]float32, m*n*g.Cols())
	blk := quant.MustParseBlock("mxfp8-e4m3")
	k := g.Rows()
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for _, tc := range []struct {
			name string
			f    func()
		}{
			{"GemmCols", func() { GemmCols(false, m, a, k, x, n, g, c, n*g.Cols()) }},
			{"GemmColsT", func() { GemmColsT(false, m, a, n*g.Cols(), x, n, g, c, k) }},
			{"GemmBlocked", func() {
				GemmBlocked(false, false, m, 64, k, a, k, blk, x, 64, blk, c, 64)
			}},
		} {
			if got := allocs.PerRun(20, tc.f); got != 0 {
				t.Errorf("%d cores: %s: %v allocations a call", procs, tc.name, got)
			}
		}
	}
}
