//go:build openblas

package gemm

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
