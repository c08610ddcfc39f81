package compute

import (
	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/quant"
)

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

// GemmBlocked sets c (m × n, row stride ldc) to op(A)·op(B), op(A) =
// op(a) rounded by qa and op(B) = op(b) by qb (nil: as they are), each
// with its blocks along the sum, rounding the operands' blocks as the
// GEMM packs them, and reports true: the bits of RoundMatrix of each and
// Gemm (α 1, β 0), but for the sign and payload of NaNs
// (gemm.GemmBlocked). It reports false, doing nothing, unless
// PacksBlocks holds for each rounder that is not nil.
func GemmBlocked(tA, tB bool, m, n, k int, a []float32, lda int, qa *Rounder, b []float32, ldb int, qb *Rounder, c []float32, ldc int) bool {
	var ba, bb quant.BlockFormat
	if qa != nil {
		if !PacksBlocks(qa) {
			return false
		}
		ba = qa.b
	}
	if qb != nil {
		if !PacksBlocks(qb) {
			return false
		}
		bb = qb.b
	}
	if _, ok := impl.(CPU); !ok {
		return false
	}
	gemm.GemmBlocked(tA, tB, m, n, k, a, lda, ba, b, ldb, bb, c, ldc)
	return true
}
