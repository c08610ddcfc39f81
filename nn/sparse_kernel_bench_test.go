package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/sparsity"
)

// BenchmarkMaskApply32 measures the fast 2:4 mask (masked weights and
// mask from the master weights) and the mask's application to a
// gradient, on the 1026 × 784 weights of a CGAN layer, in values per
// second.
func BenchmarkMaskApply32(b *testing.B) {
	if !sparseFast() {
		b.Skip("no mask kernel at this level")
	}
	r := rand.New(rand.NewPCG(1, 2))
	rows, cols := 784, 1026
	if testing.Short() {
		rows = 32
	}
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	y, keep := make([]float32, len(w)), make([]bool, len(w))
	for _, p := range []sparsity.Pattern{{N: 1, M: 2}, {N: 2, M: 4}, {N: 4, M: 8}} {
		tab := newMaskTable(p)
		b.Run(fmt.Sprintf("%dof%d", p.N, p.M), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				maskApply32(keep, y, w, rows, cols, tab, p.M)
			}
			b.ReportMetric(float64(len(w)*b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			apply32(y, w, keep)
		}
		b.ReportMetric(float64(len(w)*b.N)/b.Elapsed().Seconds(), "elem/s")
	})
}
