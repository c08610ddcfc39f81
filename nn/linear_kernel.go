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
	var shared bool
	bb.wq, shared = elemWeights(r, &bb.wOwn, wd, cache)
	bb.rd = wRead{cached: cache, shared: shared, ver: r.wc.ver.Load()}
	// Block formats: both operands blocked along the reduction dimension
	// (in); xq and wq keep the unrounded values for the backward products.
	xf := blocked(r.actB, &bb.blk.x, bb.xq, n, in, quant.AlongRow)
	wf := blockWeights(r, &bb.blk.w, wd, bb.wq, out, in, quant.AlongRow, formRow, cache)
	yd := data[T](y)
	mm(r, r.accOut, false, true, n, out, in, xf, in, wf, in, yd)
	if b != nil {
		compute.AddBias(yd, data[T](b), n, 1)
	}
	compute.RoundSlice(r.out, yd, yd)
	bb.gen++
}

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
	dyb := blocked(r.errB, &bb.blk.dyx, dyq, n, out, quant.AlongRow)
	wb := blockWeights(r, &bb.blk.wb, bb.wq, bb.wq, out, in, quant.AlongColumn, formCol, bb.rd.backCache(r, st.l.name))
	d := data[T](dx)
	mm(r, r.accErr, false, false, n, in, out, dyb, out, wb, in, d)
	compute.RoundSlice(r.err, d, d)
}

func linBackW[T compute.Float](st *linState, bb *linBufs[T], dy, dw *tensor.Dense) {
	r := st.roles()
	dyq := linDY(st, bb, dy)
	n, in, out := st.batch, st.l.In, st.l.Out
	// dw = dyᵀ·x sums over the batch: both blocked down their columns.
	dyb := blocked(r.errB, &bb.blk.dyw, dyq, n, out, quant.AlongColumn)
	xb := blocked(r.actB, &bb.blk.xb, bb.xq, n, in, quant.AlongColumn)
	d := data[T](dw)
	if r.f.Accum == quant.AccumFP32 && !r.wgrad.IsIdentity() && r.f.WGrad.Rounding != quant.Stochastic {
		bb.wj = wgradJob[T]{q: r.wgrad, dy: dyb, x: xb, dw: d, n: n, in: in, out: out, rows: wgradRows(in)}
		compute.ForRanges((out+bb.wj.rows-1)/bb.wj.rows, wgradMinChunks(bb.wj.rows, n, in), &bb.wj)
		bb.wj = wgradJob[T]{}
		return
	}
	mm(r, r.accWGrad, true, false, out, in, n, dyb, out, xb, in, d)
	compute.RoundSlice(r.wgrad, d, d)
}

// wgradJob computes a weight gradient dw = dyᵀ·x (out×in, summed over
// the n rows of the batch) and rounds it, a chunk of rows of dw at a
// time: each chunk is rounded while the product has just written it and
// it is still in the cache, instead of in a second pass over the whole
// gradient, which is as large as the weights and has left the cache by
// the product's end. Each element of dw is the same chain of float32
// multiply-adds whatever the chunking (internal/gemm), and the rounding
// to nearest is element by element, so the bits are those of the product
// then the rounding.
type wgradJob[T compute.Float] struct {
	q                *compute.Rounder
	dy, x, dw        []T
	n, in, out, rows int
}

// Range computes and rounds chunks [lo, hi) of rows of dw.
func (j *wgradJob[T]) Range(lo, hi int) {
	for c := lo; c < hi; c++ {
		i0 := c * j.rows
		i1 := min(i0+j.rows, j.out)
		d := j.dw[i0*j.in : i1*j.in]
		compute.Gemm(true, false, i1-i0, j.in, j.n, 1, j.dy[i0:], j.out, j.x, j.in, 0, d, j.in)
		compute.RoundSlice(j.q, d, d)
	}
}

// wgradRows is the number of rows of a weight gradient with in columns
// that wgradJob computes and rounds at a time: about 128 KB of float32s,
// in whole tiles of the GEMM's kernels (6 or 8 rows).
func wgradRows(in int) int {
	return max(24, (32768/in)/24*24)
}

// wgradMinChunks is the fewest chunks of rows a goroutine takes: enough
// multiply-adds (about 8 M) to pay for another goroutine.
func wgradMinChunks(rows, n, in int) int {
	return max(1, (1<<23)/max(1, rows*n*in))
}

// sumRows sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p] (the bias gradient of an (n, C, inner)
// tensor), rounded to WGrad.
func sumRows[T compute.Float](r *roles, src, dst []T, n, inner int) {
	compute.SumBias(dst, src, n, inner)
	compute.RoundSlice(r.wgrad, dst, dst)
}
