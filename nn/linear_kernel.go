package nn

import (
	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/tensor"
)

// linForward computes y = Out(Act(x)·Weight(w)ᵀ + b).
func linForward[T compute.Float](st *linState, bb *linBufs[T], x, w, b, y *tensor.Dense) {
	r := st.roles()
	n, in, out := st.batch, st.l.In, st.l.Out
	bb.xq = grow(bb.xq, n*in)
	compute.RoundSlice(r.act, bb.xq, data[T](x))
	// The weights rounded, once per version of them if the layer caches
	// them (wcache.go).
	wd := data[T](w)[:out*in]
	cache := r.wc.caches(st.mask != nil)
	if fwdChunks(r) {
		if wq, ok := fwdFused(st, bb, wd, cache, data[T](y)); ok {
			bb.wq = wq
			if b != nil {
				compute.AddBias(data[T](y), data[T](b), n, 1)
			}
			compute.RoundSlice(r.out, data[T](y), data[T](y))
			bb.gen++
			return
		}
	}
	var shared bool
	bb.wq, shared = elemWeights(r, &bb.wOwn, wd, cache)
	bb.rd = wRead{cached: cache, shared: shared, ver: r.wc.ver.Load()}
	// Block formats: both operands blocked along the reduction dimension
	// (in); xq and wq keep the unrounded values for the backward products.
	xf, xq := packedOr(r, r.actB, &bb.blk.x, bb.xq, n, in, quant.AlongRow)
	wf, wq := packedWeights(r, &bb.blk.w, wd, bb.wq, out, in, quant.AlongRow, formRow, cache)
	yd := data[T](y)
	mmBlocked(r, r.accOut, false, true, n, out, in, xf, in, xq, wf, in, wq, yd)
	if b != nil {
		compute.AddBias(yd, data[T](b), n, 1)
	}
	compute.RoundSlice(r.out, yd, yd)
	bb.gen++
}

// fwdChunks reports whether a forward product may round its weights a
// chunk at a time (fwdFused): element-wise to nearest, summed in float32.
func fwdChunks(r *roles) bool {
	return r.wB == nil && r.actB == nil && r.f.Accum == quant.AccumFP32 && !r.w.IsIdentity() &&
		r.f.Weight.Rounding != quant.Stochastic
}

// fwdFused computes y = xq·wqᵀ where the weights need rounding (no
// cached rounding of their current version), rounding them a chunk of
// rows at a time just before the product reads that chunk: the product
// then reads the rounded weights from the cache rather than from memory,
// where a whole rounding pass would have left all but its tail. It sets
// bb.rd and returns the rounded weights and true, or false if the cache
// holds them (then nothing is done). The bits are those of rounding all
// the weights, then the product: the rounding is element by element, and
// each element of y is the same chain of multiply-adds whatever the
// columns the product computes at a time (internal/gemm).
func fwdFused[T compute.Float](st *linState, bb *linBufs[T], wd []T, cache bool, y []T) ([]T, bool) {
	r := st.roles()
	var wq []T
	shared := false
	if w32, ok := any(wd).([]float32); ok && cache {
		if _, hit := r.wc.get(formElem, w32); hit {
			return nil, false
		}
		wq, shared = any(r.wc.put(formElem, w32)).([]T), true
	} else {
		bb.wOwn = grow(bb.wOwn, len(wd))
		wq = bb.wOwn
	}
	bb.rd = wRead{cached: cache, shared: shared, ver: r.wc.ver.Load()}
	n, in, out := st.batch, st.l.In, st.l.Out
	rows := fwdRows(in)
	bb.fj = fwdJob[T]{q: r.w, w: wd, wq: wq, x: bb.xq, y: y, n: n, in: in, out: out, rows: rows}
	compute.ForRanges((out+rows-1)/rows, minChunks(rows, n, in), &bb.fj)
	bb.fj = fwdJob[T]{}
	return wq, true
}

// fwdJob rounds the weights of a Linear layer a chunk of rows (output
// units) at a time and computes the columns of y = x·wqᵀ they give.
type fwdJob[T compute.Float] struct {
	q                *compute.Rounder
	w, wq, x, y      []T
	n, in, out, rows int
}

// Range rounds chunks [lo, hi) of rows of the weights and computes their
// columns of y.
func (j *fwdJob[T]) Range(lo, hi int) {
	for c := lo; c < hi; c++ {
		o0 := c * j.rows
		o1 := min(o0+j.rows, j.out)
		compute.RoundSlice(j.q, j.wq[o0*j.in:o1*j.in], j.w[o0*j.in:o1*j.in])
		compute.Gemm(false, true, j.n, o1-o0, j.in, 1, j.x, j.in, j.wq[o0*j.in:o1*j.in], j.in, 0, j.y[o0:], j.out)
	}
}

// fwdRows is the number of weight rows (output units) that fwdJob
// rounds and multiplies at a time: whole panels of the GEMM's kernels (16
// or 32 columns of y), few enough that the rounded rows are still in the
// cache when the product reads them, enough that the product's repacking
// of x for each chunk costs little. With 128, on the CGAN's layers of
// 263 K to 804 K weights read from memory at batch 64 (one thread,
// 2026-11-27), the forward took 0.83-0.94 of the time of a rounding pass
// then the product at AVX-512, 0.94-0.99 at AVX2; smaller chunks did no
// better, and 32 did worse.
func fwdRows(int) int { return 128 }

// linDY returns the incoming gradient rounded to Err, rounding it once per
// run for the backward ops that share it. Without an Err format it is dy
// itself, an input of each of those ops, which none of them changes: a
// copy would only cost a pass over it.
func linDY[T compute.Float](st *linState, bb *linBufs[T], dy *tensor.Dense) []T {
	if st.roles().err.IsIdentity() {
		return data[T](dy)
	}
	if bb.dyGen != bb.gen || len(bb.dyq) != dy.Size() {
		bb.dyq = grow(bb.dyq, dy.Size())
		compute.RoundSlice(st.roles().err, bb.dyq, data[T](dy))
		bb.dyGen = bb.gen
	}
	return bb.dyq
}

func linBackX[T compute.Float](st *linState, bb *linBufs[T], dy, dx *tensor.Dense) {
	r := st.roles()
	dyq := linDY(st, bb, dy)
	n, in, out := st.batch, st.l.In, st.l.Out
	// dx = dy·W sums over out: dy blocked along its rows, W down its
	// columns (re-blocked from the unrounded weights).
	dyb, dq := packedOr(r, r.errB, &bb.blk.dyx, dyq, n, out, quant.AlongRow)
	wb, wq := packedWeights(r, &bb.blk.wb, bb.wq, bb.wq, out, in, quant.AlongColumn, formCol, bb.rd.backCache(r, st.l.name))
	d := data[T](dx)
	mmBlocked(r, r.accErr, false, false, n, in, out, dyb, out, dq, wb, in, wq, d)
	compute.RoundSlice(r.err, d, d)
}

func linBackW[T compute.Float](st *linState, bb *linBufs[T], dy, dw *tensor.Dense) {
	r := st.roles()
	dyq := linDY(st, bb, dy)
	n, in, out := st.batch, st.l.In, st.l.Out
	// dw = dyᵀ·x sums over the batch: both blocked down their columns.
	dyb, dq := packedOr(r, r.errB, &bb.blk.dyw, dyq, n, out, quant.AlongColumn)
	xb, xq := packedOr(r, r.actB, &bb.blk.xb, bb.xq, n, in, quant.AlongColumn)
	d := data[T](dw)
	if backWChunks(r) {
		rows := backWRows(in)
		bb.bj = backWJob[T]{q: r.wgrad, dy: dyq, x: bb.xq, dw: d, n: n, in: in, out: out, rows: rows}
		compute.ForRanges((out+rows-1)/rows, minChunks(rows, n, in), &bb.bj)
		bb.bj = backWJob[T]{}
		return
	}
	mmBlocked(r, r.accWGrad, true, false, out, in, n, dyb, out, dq, xb, in, xq, d)
	compute.RoundSlice(r.wgrad, d, d)
}

// backWChunks reports whether the weight gradient may be computed and
// rounded a chunk of rows at a time (backWJob): element-wise formats,
// summed in float32, rounded to nearest (a stochastic rounder's stream
// runs through the tensor in order, so it must round it in one pass).
func backWChunks(r *roles) bool {
	return r.errB == nil && r.actB == nil && r.f.Accum == quant.AccumFP32 && !r.wgrad.IsIdentity() &&
		r.f.WGrad.Rounding != quant.Stochastic
}

// backWJob computes the weight gradient dw = dyᵀ·x of a Linear layer a
// chunk of rows (output units) at a time and rounds each chunk to WGrad
// while it is in the cache, where a rounding pass over the whole
// gradient would read it back from memory. The bits are those of the
// whole product, then the rounding: the rounding is element by element,
// and each element of dw is the same chain of multiply-adds whatever the
// rows the product computes at a time (internal/gemm).
type backWJob[T compute.Float] struct {
	q                *compute.Rounder
	dy, x, dw        []T
	n, in, out, rows int
}

// Range computes and rounds chunks [lo, hi) of rows of dw.
func (j *backWJob[T]) Range(lo, hi int) {
	for c := lo; c < hi; c++ {
		o0 := c * j.rows
		o1 := min(o0+j.rows, j.out)
		d := j.dw[o0*j.in : o1*j.in]
		compute.Gemm(true, false, o1-o0, j.in, j.n, 1, j.dy[o0:], j.out, j.x, j.in, 0, d, j.in)
		compute.RoundSlice(j.q, d, d)
	}
}

// backWRows is the number of rows of the weight gradient (output units)
// that backWJob computes and rounds at a time: whole panels of every
// GEMM kernel's tile (8 rows at AVX-512, 6 at AVX2, 4 in Go; a partial
// panel goes through a slower edge tile), few enough that the chunk (96
// rows of up to 1024 inputs: 384 kB) is still in a core's L2 when it is
// rounded.
func backWRows(int) int { return 96 }

// minChunks is the fewest chunks of rows a goroutine takes: enough
// multiply-adds (about 8 M) to pay for another goroutine.
func minChunks(rows, n, in int) int {
	return max(1, (1<<23)/max(1, rows*n*in))
}

// sumRows sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p] (the bias gradient of an (n, C, inner)
// tensor), rounded to WGrad.
func sumRows[T compute.Float](r *roles, src, dst []T, n, inner int) {
	compute.SumBias(dst, src, n, inner)
	compute.RoundSlice(r.wgrad, dst, dst)
}
