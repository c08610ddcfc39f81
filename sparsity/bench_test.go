package sparsity_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/positgan/positgan/sparsity"
)

// BenchmarkMaskAbs measures the |w| mask of a 1024-wide weight matrix, in
// values per second, for the patterns of the sparsity table.
func BenchmarkMaskAbs(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows, cols = 512, 1024
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	keep := make([]bool, len(w))
	b.Run("apply", func(b *testing.B) {
		dst := make([]float32, len(w))
		sparsity.MaskAbs(keep, w, rows, cols, sparsity.Pattern{N: 2, M: 4}, sparsity.AlongRow)
		for b.Loop() {
			sparsity.Apply(dst, w, keep)
		}
		b.ReportMetric(float64(len(w)*b.N)/b.Elapsed().Seconds(), "elem/s")
	})
	for _, p := range []sparsity.Pattern{{N: 1, M: 2}, {N: 2, M: 4}, {N: 2, M: 8}, {N: 4, M: 16}} {
		b.Run(strconv.Itoa(p.N)+"of"+strconv.Itoa(p.M), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sparsity.MaskAbs(keep, w, rows, cols, p, sparsity.AlongRow)
			}
			b.ReportMetric(float64(len(w)*b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
}
