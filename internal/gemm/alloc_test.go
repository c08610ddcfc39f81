package gemm

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/positgan/positgan/internal/allocs"
)

// Im2colBatch and Col2imBatch allocate nothing once warm, on one core and
// split across two, in both their forms: the calls of a training step
// are thousands, and each allocation is work for the collector.
func TestBatchAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name             string
		n, c, h, k, s, p int
	}{
		{"channels", 16, 16, 14, 4, 2, 1},
		{"whole", 64, 64, 7, 7, 1, 0}, // wholeImage
	} {
		g, err := ConvGeom(tc.c, tc.h, tc.h, tc.k, tc.k, tc.s, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		n := tc.n
		if work := g.Rows() * n * g.Cols(); work < 2*minWork {
			t.Fatalf("%s: work %d too little to split", tc.name, work)
		}
		x := spread[float32](rng, n*g.C*g.H*g.W)
		col := make([]float32, g.Rows()*n*g.Cols())
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			if a := allocs.PerRun(20, func() { Im2colBatch(col, x, n, g) }); a != 0 {
				t.Errorf("%s, %d cores: Im2colBatch: %v allocations a call", tc.name, procs, a)
			}
			if a := allocs.PerRun(20, func() { Col2imBatch(x, col, n, g) }); a != 0 {
				t.Errorf("%s, %d cores: Col2imBatch: %v allocations a call", tc.name, procs, a)
			}
		}
	}
}
