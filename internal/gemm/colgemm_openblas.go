//go:build openblas

package gemm

import "github.com/positgan/positgan/quant"

// GemmCols sets c (m × n·g.Cols(), row stride ldc) to op(a)·Col, Col the
// column matrix Im2colBatch(x, n, g). With OpenBLAS it builds Col and
// calls Gemm (colgemm.go has the packing of the default build).
func GemmCols[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, c []T, ldc int) {
	col := make([]T, g.Rows()*n*g.Cols())
	Im2colBatch(col, x, n, g)
	Gemm(tA, false, m, n*g.Cols(), g.Rows(), 1, a, lda, col, max(1, n*g.Cols()), 0, c, ldc)
}

// GemmColsT sets c (m × g.Rows(), row stride ldc) to op(a)·Colᵀ, as
// GemmCols.
func GemmColsT[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, c []T, ldc int) {
	col := make([]T, g.Rows()*n*g.Cols())
	Im2colBatch(col, x, n, g)
	Gemm(tA, true, m, g.Rows(), n*g.Cols(), 1, a, lda, col, max(1, n*g.Cols()), 0, c, ldc)
}

// GemmColsBlocked is GemmCols with Col rounded to blk with blocks down
// its columns (colgemm_block.go has the default build's).
func GemmColsBlocked(tA bool, m int, a []float32, lda int, x []float32, n int, g Geom, blk quant.BlockFormat, c []float32, ldc int) {
	k, nc := g.Rows(), n*g.Cols()
	col := make([]float32, k*nc)
	Im2colBatch(col, x, n, g)
	blk.RoundMatrix(col, col, k, nc, quant.AlongColumn, quant.Nearest, nil)
	Gemm(tA, false, m, nc, k, 1, a, lda, col, max(1, nc), 0, c, ldc)
}

// GemmColsTBlocked is GemmColsT with Col rounded to blk with blocks
// along its rows.
func GemmColsTBlocked(tA bool, m int, a []float32, lda int, x []float32, n int, g Geom, blk quant.BlockFormat, c []float32, ldc int) {
	k, nc := n*g.Cols(), g.Rows()
	col := make([]float32, k*nc)
	Im2colBatch(col, x, n, g)
	blk.RoundMatrix(col, col, nc, k, quant.AlongRow, quant.Nearest, nil)
	Gemm(tA, true, m, nc, k, 1, a, lda, col, max(1, k), 0, c, ldc)
}

// GemmBlockedB sets c to op(a)·op(B), op(B) = op(b) rounded to blk with
// its blocks along the sum (colgemm_block.go has the default build's).
func GemmBlockedB(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, blk quant.BlockFormat, c []float32, ldc int) {
	GemmBlocked(tA, tB, m, n, k, a, lda, quant.BlockFormat{}, b, ldb, blk, c, ldc)
}

// GemmBlocked sets c to op(A)·op(B), the operands rounded to blkA and
// blkB with their blocks along the sum (colgemm_block.go has the default
// build's): here into copies.
func GemmBlocked(tA, tB bool, m, n, k int, a []float32, lda int, blkA quant.BlockFormat, b []float32, ldb int, blkB quant.BlockFormat, c []float32, ldc int) {
	a, lda = roundedCopy(!tA, m, k, a, lda, blkA)
	b, ldb = roundedCopy(tB, n, k, b, ldb, blkB)
	Gemm(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}

// PacksPanels reports false: with OpenBLAS the blocked products round
// their operands into copies.
func PacksPanels(quant.BlockFormat) bool { return false }
