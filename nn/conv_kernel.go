package nn

import (
	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/tensor"
)

// Conv2d: Y = W·col(X), with the columns of all images side by side:
// col is (C·K·K) × (B·P), Y is OutC × (B·P), P = OH·OW output positions.

func convForward[T compute.Float](st *convState, bb *convBufs[T], x, w, b, y *tensor.Dense) {
	r, g, n := st.roles, st.g, st.batch
	rows, p := g.Rows(), g.Cols()
	ld := n * p
	// The input is rounded into a copy only if it rounds; otherwise it is
	// packed straight from x. The fused product's columns round it as
	// they pad it instead (roundX is not called).
	raw := data[T](x)
	xq, unrounded := raw, !r.act.IsIdentity()
	roundX := func() {
		if unrounded {
			bb.xq = grow(bb.xq, x.Size())
			compute.RoundSlice(r.act, bb.xq, raw)
			xq, unrounded = bb.xq, false
		}
	}
	convWeights(st, bb, data[T](w))
	var bias []T
	if b != nil {
		bias = data[T](b)
	}
	if directConv[T](st) {
		roundX()
		if convForwardDirect(st, xq, bb.wq, bias, data[T](y)) {
			compute.RoundSlice(r.out, data[T](y), data[T](y))
			bb.gen++
			return
		}
	}
	if band := bandRows[T](st); band > 0 {
		roundX()
		convForwardBands(st, bb, xq, bb.wq, bias, data[T](y), band)
		compute.RoundSlice(r.out, data[T](y), data[T](y))
		bb.gen++
		return
	}
	wf := blockWeights(r, &bb.blk.w, bb.wq, bb.wq, st.outC, rows, quant.AlongRow, formRow, bb.rd.cached)
	bb.yt = grow(bb.yt, st.outC*ld)
	if bb.colsFused = fuseCols[T](r, r.actB); bb.colsFused {
		// The product packs its columns from the rounded input, padded
		// into bb.col (a third of the columns' size for 4×4 stride-2
		// layers), where convBackW finds it again. Even unpadded it is
		// copied there: a graph may write x's buffer between the
		// forward and backward passes. Block formats round each packed
		// panel down its columns, and convBackW's along its rows.
		gp := compute.Padded(g)
		if gp != g || !st.lend {
			bb.col = grow(bb.col, n*gp.C*gp.H*gp.W)
			if !unrounded || !compute.PadImagesRound(r.act, bb.col, raw, n, g) {
				roundX()
				compute.PadImages(bb.col, xq, n, g)
			}
			xq = bb.col
		} else {
			roundX()
		}
		colsGemm(false, st.outC, wf, rows, xq, n, gp, r.actB, bb.yt, ld)
		compute.MatrixToImagesRound(r.out, data[T](y), bb.yt, bias, n, st.outC, p)
		bb.gen++
		return
	}
	roundX()
	bb.col = grow(bb.col, rows*ld)
	compute.Im2colBatch(bb.col, xq, n, g)
	// Block formats: both operands blocked along the reduction dimension
	// (C·K·K), the weights into a copy and the packed columns into one
	// too, as convBackW blocks the unrounded columns again along their
	// rows (packing them again would cost more than the copy); a node
	// without a gradient, whose columns are borrowed, rounds them in place.
	col := bb.col
	switch {
	case r.actB != nil && st.lend:
		compute.RoundMatrix(r.actB, bb.col, bb.col, rows, ld, quant.AlongColumn)
	case r.actB != nil:
		col = blocked(r.actB, &bb.blk.col, bb.col, rows, ld, quant.AlongColumn)
	}
	mm(r, r.accOut, false, false, st.outC, ld, rows, wf, rows, col, ld, bb.yt)
	compute.MatrixToImagesRound(r.out, data[T](y), bb.yt, bias, n, st.outC, p)
	bb.gen++
}

// col2imProduct sets dst, n images of geometry g, to Col2imBatch of the
// product Aᵀ·B, where A (k × Rows) holds the weights and B (k × n·Cols)
// the columns of the n images side by side: chunk images at a time, in
// buf. If bq is not nil, B is b rounded by bq down its columns as the
// product packs it (packedOr). A pass's block of the product is still in cache when col2im reads
// it; the whole product for a batch (12.8 MB for dcgan64's middle layers,
// against 3.2 MB a pass) often is not: their GEMM and col2im take 12% less
// time in passes.
func col2imProduct[T compute.Float](r *roles, acc *compute.Rounder, dst, a, b []T, bq *compute.Rounder, k, n int, g compute.Geom, chunk int, buf *[]T) {
	col2imProductThen(r, acc, dst, a, b, bq, k, n, g, chunk, buf, nil, nil)
}

// col2imProductThen is col2imProduct followed by compute.AddBias(dst,
// bias, n, H·W) (bias nil: none) and compute.RoundSlice(out, dst, dst),
// done to each pass's images right after col2im wrote them, while they
// are in cache, instead of in passes over the whole batch. out, if not
// nil, must round in parts (compute.RoundsInParts): the bits are then
// those of the whole calls.
func col2imProductThen[T compute.Float](r *roles, acc *compute.Rounder, dst, a, b []T, bq *compute.Rounder, k, n int, g compute.Geom, chunk int, buf *[]T, bias []T, out *compute.Rounder) {
	rows, p, img := g.Rows(), g.Cols(), g.C*g.H*g.W
	ld := n * p
	*buf = grow(*buf, rows*min(chunk, n)*p)
	for b0 := 0; b0 < n; b0 += chunk {
		nb := min(chunk, n-b0)
		col := (*buf)[:rows*nb*p]
		mmBlocked(r, acc, true, false, rows, nb*p, k, a, rows, nil, b[b0*p:], ld, bq, col)
		d := dst[b0*img : (b0+nb)*img]
		compute.Col2imBatch(d, col, nb, g)
		if bias != nil {
			compute.AddBias(d, bias, nb, g.H*g.W)
		}
		if out != nil {
			compute.RoundSlice(out, d, d)
		}
	}
}

// inParts returns q if it rounds and rounds in parts
// (compute.RoundsInParts), for col2imProductThen, and nil otherwise: the
// caller then rounds the whole output after.
func inParts(q *compute.Rounder) *compute.Rounder {
	if q.IsIdentity() || !compute.RoundsInParts(q) {
		return nil
	}
	return q
}

// colChunk returns how many of n images (of p columns each)
// col2imProduct multiplies at a time: the fewest equal passes of at most
// chunkCols columns. Each element of a product by this module's float32
// GEMM is one chain of FMAs over the sum, whatever the columns computed
// with it, so the bits do not change. OpenBLAS makes no such promise; the
// quire and per-op kernels (with their costs per call) and float64
// products (gradient checks, whose GEMM blocks half as many columns) take
// all n at once too.
func colChunk[T compute.Float](r *roles, n, p int) int {
	if _, ok := any(T(0)).(float32); !ok || r.f.Accum != quant.AccumFP32 || compute.Name() == "openblas" || n*p <= chunkCols {
		return max(n, 1)
	}
	passes := (n*p + chunkCols - 1) / chunkCols
	return (n + passes - 1) / passes
}

// chunkCols is the float32 GEMM's column block (blockN in
// internal/gemm/sgemm.go): a product of more columns takes a second,
// often narrow, block.
const chunkCols = 1024

// fuseCols reports whether the products that read a column matrix pack
// it straight from the images (compute.GemmCols) rather than from the
// matrix: float32 or float64 sums on the CPU backend, the columns not
// block-rounded (blk nil) or, for float32, block-rounded to nearest
// (compute.GemmColsBlocked rounds the panels as it packs them). Both give
// the same bits (a NaN block's NaNs may change sign, as between the block
// kernels); the matrix of dcgan64's middle layer is 12.8 MB at batch 64,
// and writing and reading it back took a sixth of the time of the
// products that read it (and of an mxfp8 step, with its rounding, more).
func fuseCols[T compute.Float](r *roles, blk *compute.Rounder) bool {
	_, cpu := compute.Current().(compute.CPU)
	if !cpu || r.f.Accum != quant.AccumFP32 {
		return false
	}
	return blk == nil || packsBlocks[T](r, blk)
}

// colsGemm sets c to a·Col (tB false: a is m × Rows, c m × ld) or a·Colᵀ
// (tB true: a is m × ld, c m × Rows), Col the column matrix of the n
// images x of geometry g (Rows × ld, ld = n·Cols), with a not transposed;
// blk, if not nil, rounds Col with its blocks along the sum (down its
// columns for a·Col, along its rows for a·Colᵀ), and T is then float32
// (fuseCols).
//
// If the backend in use cannot (it was changed since fuseCols said it
// could), colsGemm builds Col in a new matrix.
func colsGemm[T compute.Float](tB bool, m int, a []T, lda int, x []T, n int, g compute.Geom, blk *compute.Rounder, c []T, ldc int) {
	if blk != nil {
		a32, x32, c32 := any(a).([]float32), any(x).([]float32), any(c).([]float32)
		if tB && compute.GemmColsTBlocked(false, m, a32, lda, x32, n, g, blk, c32, ldc) || !tB && compute.GemmColsBlocked(false, m, a32, lda, x32, n, g, blk, c32, ldc) {
			return
		}
	} else if tB && compute.GemmColsT(false, m, a, lda, x, n, g, c, ldc) || !tB && compute.GemmCols(false, m, a, lda, x, n, g, c, ldc) {
		return
	}
	rows, ld := g.Rows(), n*g.Cols()
	col := make([]T, rows*ld)
	compute.Im2colBatch(col, x, n, g)
	if blk != nil {
		axis := quant.AlongColumn
		if tB {
			axis = quant.AlongRow
		}
		compute.RoundMatrix(blk, col, col, rows, ld, axis)
	}
	if tB {
		compute.Gemm(false, true, m, rows, ld, 1, a, lda, col, ld, 0, c, ldc)
	} else {
		compute.Gemm(false, false, m, ld, rows, 1, a, lda, col, ld, 0, c, ldc)
	}
}

// convDY rounds the incoming gradient to Err once per run: for Conv2d into
// a (OutC, B·P) matrix; for ConvTranspose2d in dy's layout, and packs it
// into the column matrix dcol (or, fused, pads it into dcol). A fused
// ConvTranspose2d without an Err format pads dy itself and returns it:
// the copy would be dy.
func convDY[T compute.Float](st *convState, bb *convBufs[T], dy *tensor.Dense) []T {
	asIs := st.transposed && st.roles.err.IsIdentity() && fuseCols[T](st.roles, st.roles.errB)
	if bb.dyGen == bb.gen && (asIs && len(bb.dcol) > 0 || !asIs && len(bb.dyq) == dy.Size()) {
		if asIs {
			return data[T](dy)
		}
		return bb.dyq
	}
	bb.dyGen = bb.gen
	g, n := st.g, st.batch
	if asIs {
		// The backward products pack dcol from dy padded into dcol
		// (convForward).
		bb.colsFused = true
		gp := compute.Padded(g)
		bb.dcol = grow(bb.dcol, n*gp.C*gp.H*gp.W)
		compute.PadImages(bb.dcol, data[T](dy), n, g)
		return data[T](dy)
	}
	bb.dyq = grow(bb.dyq, dy.Size())
	if !st.transposed {
		compute.ImagesToMatrixRound(st.roles.err, bb.dyq, data[T](dy), n, st.outC, g.Cols())
		return bb.dyq
	}
	// Fused, the backward products pack dcol from dyq padded into dcol
	// (convForward), each run of planes padded as soon as it is rounded.
	if bb.colsFused = fuseCols[T](st.roles, st.roles.errB); bb.colsFused {
		gp := compute.Padded(g)
		bb.dcol = grow(bb.dcol, n*gp.C*gp.H*gp.W)
		if !compute.PadImagesRoundInto(st.roles.err, bb.dcol, bb.dyq, data[T](dy), n, g) {
			compute.RoundSlice(st.roles.err, bb.dyq, data[T](dy))
			compute.PadImages(bb.dcol, bb.dyq, n, g)
		}
	} else {
		compute.RoundSlice(st.roles.err, bb.dyq, data[T](dy))
		bb.dcol = grow(bb.dcol, g.Rows()*n*g.Cols())
		compute.Im2colBatch(bb.dcol, bb.dyq, n, g)
	}
	return bb.dyq
}

func convBackX[T compute.Float](st *convState, bb *convBufs[T], dy, dx *tensor.Dense) {
	r, g, n := st.roles, st.g, st.batch
	rows, p := g.Rows(), g.Cols()
	ld := n * p
	dyq := convDY(st, bb, dy)
	// dcol = Wᵀ·dy sums over OutC: both blocked down their columns, dy
	// as the product packs it where it can.
	dyx, dq := packedOr(r, r.errB, &bb.blk.dyx, dyq, st.outC, ld, quant.AlongColumn)
	wb := blockWeights(r, &bb.blk.wb, bb.wq, bb.wq, st.outC, rows, quant.AlongColumn, formCol, bb.rd.backCache(r, st.name))
	d := data[T](dx)
	fin := inParts(r.err)
	col2imProductThen(r, r.accErr, d, wb, dyx, dq, st.outC, n, g, colChunk[T](r, n, p), &bb.dcol, nil, fin)
	if fin == nil {
		compute.RoundSlice(r.err, d, d)
	}
}

func convBackW[T compute.Float](st *convState, bb *convBufs[T], dy, dw *tensor.Dense) {
	r, g := st.roles, st.g
	rows, ld := g.Rows(), st.batch*g.Cols()
	dyq := convDY(st, bb, dy)
	// dw = dy·colᵀ sums over B·P: both blocked along their rows, the
	// forward's unrounded columns into a copy.
	dyw := blocked(r.errB, &bb.blk.dyw, dyq, st.outC, ld, quant.AlongRow)
	d := data[T](dw)
	if bb.colsFused {
		colsGemm(true, st.outC, dyw, ld, bb.col, st.batch, compute.Padded(g), r.actB, d, rows)
		compute.RoundSlice(r.wgrad, d, d)
		return
	}
	col := blocked(r.actB, &bb.blk.col, bb.col, rows, ld, quant.AlongRow)
	mm(r, r.accWGrad, false, true, st.outC, rows, ld, dyw, ld, col, ld, d)
	compute.RoundSlice(r.wgrad, d, d)
}

// ConvTranspose2d: the geometry g maps the output image (OutC channels) to
// the input grid (P = H·W positions). col = Wᵀ·X, with X as an
// InC × (B·P) matrix, and the output is col2im(col).

func convTForward[T compute.Float](st *convState, bb *convBufs[T], x, w, b, y *tensor.Dense) {
	r, g, n := st.roles, st.g, st.batch
	rows, p := g.Rows(), g.Cols()
	ld := n * p
	bb.xq = grow(bb.xq, x.Size())
	compute.ImagesToMatrixRound(r.act, bb.xq, data[T](x), n, st.inC, p)
	convWeights(st, bb, data[T](w))
	// Block formats: both operands blocked along the reduction dimension
	// (InC), into copies (the backward products re-block the originals),
	// or x as the product packs it where it can.
	xf, xq := packedOr(r, r.actB, &bb.blk.x, bb.xq, st.inC, ld, quant.AlongColumn)
	wf := blockWeights(r, &bb.blk.w, bb.wq, bb.wq, st.inC, rows, quant.AlongColumn, formCol, bb.rd.cached)
	yd := data[T](y)
	var bias []T
	if b != nil {
		bias = data[T](b)
	}
	fin := inParts(r.out)
	col2imProductThen(r, r.accOut, yd, wf, xf, xq, st.inC, n, g, colChunk[T](r, n, p), &bb.col, bias, fin)
	if fin == nil {
		compute.RoundSlice(r.out, yd, yd)
	}
	bb.gen++
}

func convTBackX[T compute.Float](st *convState, bb *convBufs[T], dy, dx *tensor.Dense) {
	r, g, n := st.roles, st.g, st.batch
	rows, p := g.Rows(), g.Cols()
	ld := n * p
	convDY(st, bb, dy)
	// dx = W·dcol sums over OutC·K·K: W along its rows, dcol down its
	// columns.
	wb := blockWeights(r, &bb.blk.wb, bb.wq, bb.wq, st.inC, rows, quant.AlongRow, formRow, bb.rd.backCache(r, st.name))
	bb.dxt = grow(bb.dxt, st.inC*ld)
	if bb.colsFused {
		colsGemm(false, st.inC, wb, rows, bb.dcol, n, compute.Padded(g), r.errB, bb.dxt, ld)
	} else {
		dcx := blocked(r.errB, &bb.blk.dyx, bb.dcol, rows, ld, quant.AlongColumn)
		mm(r, r.accErr, false, false, st.inC, ld, rows, wb, rows, dcx, ld, bb.dxt)
	}
	compute.MatrixToImagesRound(r.err, data[T](dx), bb.dxt, nil, n, st.inC, p)
}

func convTBackW[T compute.Float](st *convState, bb *convBufs[T], dy, dw *tensor.Dense) {
	r, g := st.roles, st.g
	rows, ld := g.Rows(), st.batch*g.Cols()
	convDY(st, bb, dy)
	// dw = x·dcolᵀ sums over B·P: both along their rows.
	xb := blocked(r.actB, &bb.blk.xb, bb.xq, st.inC, ld, quant.AlongRow)
	d := data[T](dw)
	if bb.colsFused {
		colsGemm(true, st.inC, xb, ld, bb.dcol, st.batch, compute.Padded(g), r.errB, d, rows)
	} else {
		dcw := blocked(r.errB, &bb.blk.dyw, bb.dcol, rows, ld, quant.AlongRow)
		mm(r, r.accWGrad, false, true, st.inC, rows, ld, xb, ld, dcw, ld, d)
	}
	compute.RoundSlice(r.wgrad, d, d)
}
