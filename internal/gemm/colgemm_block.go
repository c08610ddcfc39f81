//go:build !openblas

package gemm

import "github.com/positgan/positgan/quant"

// GemmColsBlocked is GemmCols with the column matrix rounded to the block
// format blk, to nearest, its blocks running down Col's columns (along
// the sum, as a product's right operand is blocked): the bits of
// Im2colBatch into col, blk.RoundMatrix(col, col, g.Rows(), n·g.Cols(),
// quant.AlongColumn, quant.Nearest, nil) and Gemm, except that a NaN in a
// block holding a NaN or an infinity may differ in sign and payload
// (quant.BlockFormat.RoundPanels). Each block of op(B) is rounded as it
// is packed (RoundPanels on the packed panels), so a block-scaled
// convolution, like an fp32 one, never writes its column matrix. blk must
// not be the zero BlockFormat.
func GemmColsBlocked(tA bool, m int, a []float32, lda int, x []float32, n int, g Geom, blk quant.BlockFormat, c []float32, ldc int) {
	checkBlock(blk)
	if !panelBlocks(blk, g.Rows()) {
		k, nc := g.Rows(), n*g.Cols()
		checkCols(x, n, g)
		col := make([]float32, k*nc)
		Im2colBatch(col, x, n, g)
		blk.RoundMatrix(col, col, k, nc, quant.AlongColumn, quant.Nearest, nil)
		Gemm(tA, false, m, nc, k, 1, a, lda, col, max(1, nc), 0, c, ldc)
		return
	}
	gemmCols(tA, m, a, lda, x, n, g, blk, c, ldc)
}

// GemmColsTBlocked is GemmColsT with the column matrix rounded to blk as
// GemmColsBlocked rounds it but with its blocks running along Col's rows
// (along the sum of op(a)·Colᵀ): the bits of Im2colBatch,
// blk.RoundMatrix(col, col, g.Rows(), n·g.Cols(), quant.AlongRow,
// quant.Nearest, nil) and Gemm(tA, true, ...), up to the NaNs of
// GemmColsBlocked.
func GemmColsTBlocked(tA bool, m int, a []float32, lda int, x []float32, n int, g Geom, blk quant.BlockFormat, c []float32, ldc int) {
	checkBlock(blk)
	if !panelBlocks(blk, n*g.Cols()) {
		k, nc := n*g.Cols(), g.Rows()
		checkCols(x, n, g)
		col := make([]float32, k*nc)
		Im2colBatch(col, x, n, g)
		blk.RoundMatrix(col, col, nc, k, quant.AlongRow, quant.Nearest, nil)
		Gemm(tA, true, m, nc, k, 1, a, lda, col, max(1, k), 0, c, ldc)
		return
	}
	gemmColsT(tA, m, a, lda, x, n, g, blk, c, ldc)
}

func checkBlock(blk quant.BlockFormat) {
	if blk.IsZero() {
		panic("gemm: no block format to round the columns to")
	}
}

// panelBlocks reports whether the driver's blocks of the sum, blockK
// steps from 0, hold whole blocks of blk over a sum of k steps, so that
// the packed blocks of op(B) can be rounded one by one.
func panelBlocks(blk quant.BlockFormat, k int) bool {
	return k <= blockK || blockK%blk.Block() == 0
}

// round rounds panels of op(B) just packed into dst (while they are in
// L1: one at a time), kb steps of the sum by nb columns in panels of nr,
// to s.blk (if any) with blocks along the sum: the panels' columns, from
// the block's first step, which starts a block of s.blk (panelBlocks).
func (s *colSrc[T]) round(dst []T, kb, nb, nr int) {
	if s.blk.IsZero() {
		return
	}
	d, ok := any(dst).([]float32)
	if !ok {
		panic("gemm: block-rounded columns are float32 only")
	}
	npan := (nb + nr - 1) / nr
	s.blk.RoundPanels(d[:npan*nr*kb], kb, nr, nb)
}

// roundA rounds a block of op(A) just packed into dst, mb rows in panels
// of mr by kb steps of the sum, to s.blkA (if any; s may be nil) with
// blocks along the sum: down the panels' columns.
func (s *colSrc[T]) roundA(dst []T, kb, mb, mr int) {
	if s == nil || s.blkA.IsZero() {
		return
	}
	d, ok := any(dst).([]float32)
	if !ok {
		panic("gemm: block-rounded operands are float32 only")
	}
	npan := (mb + mr - 1) / mr
	s.blkA.RoundPanels(d[:npan*mr*kb], kb, mr, mb)
}

// GemmBlocked sets c (m × n, row stride ldc) to op(A)·op(B), op(A) =
// op(a) rounded to blkA and op(B) = op(b) to blkB (a zero BlockFormat:
// not rounded), to nearest, each with its blocks along the sum, rounding
// each block of the operands as it is packed: the bits of rounding a and
// b whole (RoundMatrix along their rows or down their columns, whichever
// runs along the sum) and Gemm(tA, tB, m, n, k, 1, a', lda, b', ldb, 0, c,
// ldc), but for the sign and payload of NaNs
// (quant.BlockFormat.RoundPanels). Neither rounded operand is written.
func GemmBlocked(tA, tB bool, m, n, k int, a []float32, lda int, blkA quant.BlockFormat, b []float32, ldb int, blkB quant.BlockFormat, c []float32, ldc int) {
	checkDims(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || !blkA.IsZero() && !panelBlocks(blkA, k) || !blkB.IsZero() && !panelBlocks(blkB, k) {
		a, lda = roundedCopy(!tA, m, k, a, lda, blkA)
		b, ldb = roundedCopy(tB, n, k, b, ldb, blkB)
		Gemm(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
		return
	}
	d := driverOf[float32]()
	var pad *[]float32
	if !blkA.IsZero() && !blkA.FastPanels(d.mr) {
		// Panels of op(A) this level's vector kernel does not take (the
		// AVX2 kernel's 6 rows) are slower to round one by one than
		// op(A) whole, into a copy, first.
		pad, _ = d.pads.Get().(*[]float32)
		if pad == nil {
			pad = new([]float32)
		}
		a, lda = roundedCopyIn(pad, !tA, m, k, a, lda, blkA)
		blkA = quant.BlockFormat{}
	}
	src := colSrc[float32]{blk: blkB, mat: b, ldm: ldb, blkA: blkA}
	d.splitCols(gemmArgs[float32]{d: d, tA: tA, tB: tB, m: m, n: n, k: k, alpha: 1, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc}, src)
	if pad != nil {
		d.pads.Put(pad)
	}
}

// GemmBlockedB sets c (m × n, row stride ldc) to op(a)·op(B), op(B) =
// op(b) rounded to the block format blk, to nearest, with its blocks
// along the sum (down op(b)'s columns: b's columns, or b's rows if tB),
// rounding each block of op(B) as it is packed: the bits of rounding b
// whole (blk.RoundMatrix with quant.AlongColumn, or quant.AlongRow if tB)
// and Gemm(tA, tB, m, n, k, 1, a, lda, b', ldb, 0, c, ldc), but for the
// sign and payload of NaNs (quant.BlockFormat.RoundPanels). The rounded
// operand is never written: for an operand read once per rounding (a
// layer's weights in its input-gradient product) that saves writing it
// and reading it back. blk must not be the zero BlockFormat.
func GemmBlockedB(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, blk quant.BlockFormat, c []float32, ldc int) {
	checkBlock(blk)
	GemmBlocked(tA, tB, m, n, k, a, lda, quant.BlockFormat{}, b, ldb, blk, c, ldc)
}

// PacksPanels reports whether the float32 GEMM in use rounds op(B)'s
// packed panels to blk with a vector kernel (quant.BlockFormat.FastPanels
// at its panel width): where it does not, rounding the operand whole
// before the product is as fast or faster.
func PacksPanels(blk quant.BlockFormat) bool { return blk.FastPanels(driverOf[float32]().nr) }
