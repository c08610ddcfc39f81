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
	mm(r, r.accWGrad, true, false, out, in, n, dyb, out, xb, in, d)
	compute.RoundSlice(r.wgrad, d, d)
}

// sumRows sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p] (the bias gradient of an (n, C, inner)
// tensor), rounded to WGrad.
func sumRows[T compute.Float](r *roles, src, dst []T, n, inner int) {
	compute.SumBias(dst, src, n, inner)
	compute.RoundSlice(r.wgrad, dst, dst)
}
