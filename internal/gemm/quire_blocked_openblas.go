//go:build openblas

package gemm

import "github.com/positgan/positgan/quant"

// blockedJob is empty with OpenBLAS: the quire's float64 products go to
// OpenBLAS's DGEMM whole, which blocks for the cache itself.
type blockedJob struct{}

// blocked reports false: QuireWorkspace.Gemm takes its plain path.
func (w *QuireWorkspace) blocked(f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	return false
}
