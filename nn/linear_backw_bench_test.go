package nn

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// BenchmarkBackW times a Linear layer's weight gradient at the CGAN's
// sizes (batch 64), rounded to posit(8,1): the whole product, then a
// rounding pass ("whole"), against the product and rounding a chunk of
// rows at a time (backWJob, "chunks"). Each iteration writes another of
// 16 gradient buffers, so that, as in training, the gradient is not in
// the cache when its product starts. Run with -cpu 1 for one core.
func BenchmarkBackW(b *testing.B) {
	q := compute.NewRounder(quant.MustParse("posit(8,1)"), quant.Nearest, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sz := range [][2]int{{1024, 512}, {784, 1024}, {1024, 794}} {
		const n = 64
		out, in := sz[0], sz[1]
		dy, x := make([]float32, n*out), make([]float32, n*in)
		for i := range dy {
			dy[i] = float32(rng.NormFloat64() * 0.01)
		}
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		var dws [16][]float32
		for i := range dws {
			dws[i] = make([]float32, out*in)
		}
		name := strconv.Itoa(out) + "x" + strconv.Itoa(in)
		b.Run(name+"/whole", func(b *testing.B) {
			i := 0
			for b.Loop() {
				d := dws[i%len(dws)]
				compute.Gemm(true, false, out, in, n, 1, dy, out, x, in, 0, d, in)
				compute.RoundSlice(q, d, d)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*out*in), "ns/weight")
		})
		b.Run(name+"/chunks", func(b *testing.B) {
			i := 0
			rows := backWRows(in)
			for b.Loop() {
				j := backWJob[float32]{q: q, dy: dy, x: x, dw: dws[i%len(dws)], n: n, in: in, out: out, rows: rows}
				compute.ForRanges((out+rows-1)/rows, minChunks(rows, n, in), &j)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*out*in), "ns/weight")
		})
	}
}
