package gemm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPerOpRow times the row kernels alone: 64 columns of 512
// terms on random tables.
func BenchmarkPerOpRow(b *testing.B) {
	const k = 512
	rng := rand.New(rand.NewPCG(6, 6))
	var prod, sum [perOpTable]uint8
	for i := range prod {
		prod[i], sum[i] = uint8(rng.Uint32()), uint8(rng.Uint32())
	}
	tables := perOpTables{&prod, &sum}
	blk := make([]uint8, perOpLanes*k)
	ar := make([]uint8, k)
	for i := range blk {
		blk[i] = uint8(rng.Uint32())
	}
	nz := make([]int32, k-1)
	for i := range ar {
		ar[i] = uint8(rng.Uint32())
		if i > 0 {
			nz[i-1] = int32(i)
		}
	}
	var out [2 * perOpLanes]uint32
	for _, kern := range perOpKernels() {
		b.Run(kern.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				kern.fn(&out, blk, ar, ar, nz, &tables)
			}
			b.ReportMetric((cpuTime()-cpu0)*1e9/float64(b.N*k*2*perOpLanes), "cpu-ns/MAC")
		})
	}
}
