package nn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// TestBackWChunks checks that a weight gradient computed and rounded a
// chunk of rows at a time (backWJob), on one goroutine or several, has
// the bits of the whole product, then a rounding pass over it: the
// product by a plain float32 FMA chain over the batch in order, which is
// what internal/gemm computes for each element (fma in float64, then
// rounded to float32: the seeded sums hit no double-rounding case).
func TestBackWChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	for _, name := range []string{"posit(8,1)", "fp8-ibm-bwd", "posit(16,1)"} {
		q := compute.NewRounder(quant.MustParse(name), quant.Nearest, nil)
		for _, sz := range [][3]int{{64, 512, 1024}, {64, 784, 130}, {7, 33, 50}, {64, 2, 65}, {3, 5, 1}} {
			n, in, out := sz[0], sz[1], sz[2]
			dy, x := make([]float32, n*out), make([]float32, n*in)
			for i := range dy {
				dy[i] = float32(rng.NormFloat64() * 0.01)
				if i%17 == 0 {
					dy[i] = 0
				}
			}
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			want := make([]float32, out*in)
			for o := range out {
				for i := range in {
					var s float32
					for b := range n {
						s = float32(math.FMA(float64(dy[b*out+o]), float64(x[b*in+i]), float64(s)))
					}
					want[o*in+i] = s
				}
			}
			q.Round(want, want)
			for _, procs := range []int{1, 2, 3} {
				prev := runtime.GOMAXPROCS(procs)
				got := make([]float32, out*in)
				j := backWJob[float32]{q: q, dy: dy, x: x, dw: got, n: n, in: in, out: out, rows: backWRows(in)}
				compute.ForRanges((out+j.rows-1)/j.rows, 1, &j)
				runtime.GOMAXPROCS(prev)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s %v procs %d: dw[%d] = %g, want %g", name, sz, procs, i, got[i], want[i])
					}
				}
			}
		}
	}
}
