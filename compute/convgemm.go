package compute

import "github.com/positgan/positgan/internal/gemm"

// ConvForward sets y, the outC × g.Cols() output of one C×H×W image x
// (rows ldy apart), to w·Im2col(x) plus bias[o] on row o (bias nil:
// none), for the outC × g.Rows() weights w, without building the column
// matrix, and reports true; the bits are those of Im2colBatch, Gemm (α 1,
// β 0) and AddBias. It reports false, doing nothing, when the backend in
// use is not CPU: the caller then packs the columns and calls Gemm.
func ConvForward[T Float](y []T, ldy int, w []T, outC int, x []T, g Geom, bias []T) bool {
	if _, ok := impl.(CPU); !ok {
		return false
	}
	gemm.ConvForward(y, ldy, w, outC, x, g, bias)
	return true
}

// GemmCols sets c (m × n·g.Cols(), row stride ldc) to op(a)·Col, where
// op(a) is m × g.Rows() and Col = Im2colBatch(x, n, g), packing the GEMM's
// panels straight from the images instead of building Col, and reports
// true; the bits are those of Im2colBatch and Gemm (α 1, β 0). It reports
// false, doing nothing, when the backend in use is not CPU.
func GemmCols[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, c []T, ldc int) bool {
	if _, ok := impl.(CPU); !ok {
		return false
	}
	gemm.GemmCols(tA, m, a, lda, x, n, g, c, ldc)
	return true
}

// GemmColsT sets c (m × g.Rows(), row stride ldc) to op(a)·Colᵀ, where
// op(a) is m × n·g.Cols(), as GemmCols: the bits of Im2colBatch and
// Gemm(tA, true, ...), or false where the backend is not CPU.
func GemmColsT[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, c []T, ldc int) bool {
	if _, ok := impl.(CPU); !ok {
		return false
	}
	gemm.GemmColsT(tA, m, a, lda, x, n, g, c, ldc)
	return true
}
