package compute

import (
	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/quant"
)

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

// PacksBlocks reports whether GemmColsBlocked, GemmColsTBlocked,
// GemmBlockedB and GemmBlocked take q: the backend in use is CPU, q rounds
// to a block format to nearest (stochastic rounding would draw its random
// bits in another order than RoundMatrix on the whole operand), and the
// GEMM rounds its packed panels to it with a vector kernel
// (gemm.PacksPanels; elsewhere rounding the operand whole is as fast).
func PacksBlocks(q *Rounder) bool {
	_, ok := impl.(CPU)
	return ok && q != nil && q.f == nil && !q.b.IsZero() && q.mode == quant.Nearest && gemm.PacksPanels(q.b)
}

// GemmColsBlocked sets c (m × n·g.Cols(), row stride ldc) to op(a)·Col
// with Col = Im2colBatch(x, n, g) rounded by q with its blocks down its
// columns, rounding the GEMM's panels as it packs them from the images,
// and reports true: the bits of Im2colBatch, RoundMatrix(q, col, col,
// g.Rows(), n·g.Cols(), quant.AlongColumn) and Gemm (α 1, β 0), but for
// the sign and payload of NaNs (gemm.GemmColsBlocked). It reports false,
// doing nothing, unless PacksBlocks(q).
func GemmColsBlocked(tA bool, m int, a []float32, lda int, x []float32, n int, g Geom, q *Rounder, c []float32, ldc int) bool {
	if !PacksBlocks(q) {
		return false
	}
	gemm.GemmColsBlocked(tA, m, a, lda, x, n, g, q.b, c, ldc)
	return true
}

// GemmColsTBlocked sets c (m × g.Rows(), row stride ldc) to op(a)·Colᵀ
// with Col rounded by q with its blocks along its rows, as
// GemmColsBlocked: the bits of Im2colBatch, RoundMatrix(q, col, col,
// g.Rows(), n·g.Cols(), quant.AlongRow) and Gemm(tA, true, ...), or false
// unless PacksBlocks(q).
func GemmColsTBlocked(tA bool, m int, a []float32, lda int, x []float32, n int, g Geom, q *Rounder, c []float32, ldc int) bool {
	if !PacksBlocks(q) {
		return false
	}
	gemm.GemmColsTBlocked(tA, m, a, lda, x, n, g, q.b, c, ldc)
	return true
}
