package compute

import "github.com/positgan/positgan/internal/gemm"

// GemmBlockedB sets c (m × n, row stride ldc) to op(a)·op(B), op(B) =
// op(b) rounded by q with its blocks along the sum (down op(b)'s
// columns), rounding each block of op(B) as the GEMM packs it, and
// reports true: the bits of RoundMatrix(q, b', b, ...) (quant.AlongColumn,
// or quant.AlongRow on b if tB) and Gemm (α 1, β 0), but for the sign and
// payload of NaNs (gemm.GemmBlockedB). It reports false, doing nothing,
// unless PacksBlocks(q).
func GemmBlockedB(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, q *Rounder, c []float32, ldc int) bool {
	if !PacksBlocks(q) {
		return false
	}
	gemm.GemmBlockedB(tA, tB, m, n, k, a, lda, b, ldb, q.b, c, ldc)
	return true
}
