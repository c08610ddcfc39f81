package nn

import (
	"unsafe"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// roundBlockForm rounds the blocked form f (formRow or formCol, along
// axis) of the rows×cols weights wq into the cache under the key w and
// returns it. A layer's products read both blocked forms of each version
// of its weights (forward and backward), so if the other form is held
// for an older version, both are rounded now in one sweep over wq
// (compute.RoundMatrixBoth), the other under the key it had: each form's
// bits are those of its own rounding, and wq is read from memory once.
func (c *weightCache) roundBlockForm(q *compute.Rounder, f weightForm, w, wq []float32, rows, cols int, axis quant.Axis) []float32 {
	g := formRow + formCol - f
	o := &c.forms[g]
	ver := c.ver.Load()
	if o.valid && o.ver != ver && o.n == len(wq) && len(wq) > 0 &&
		(o.src == unsafe.SliceData(w) || o.src == unsafe.SliceData(wq)) {
		key := unsafe.Slice(o.src, o.n)
		b, ob := c.put(f, w), c.put(g, key)
		row, col := b, ob
		if f == formCol {
			row, col = ob, b
		}
		if compute.RoundMatrixBoth(q, row, col, wq, rows, cols) {
			return b
		}
		o.valid = false
	}
	b := c.put(f, w)
	compute.RoundMatrix(q, b, wq, rows, cols, axis)
	return b
}

// mmBlockedWeights sets c (m × n) to a (m × k, row stride lda) times the
// k × n weights wq rounded by r.wB down their columns, rounding them as
// the product packs them (compute.GemmBlockedB), and reports true; or
// reports false, doing nothing, where it cannot (no block format, sums
// other than fp32, float64 data, another backend, stochastic rounding):
// the caller then multiplies by blockWeights' form. A layer's
// input-gradient product reads this form of each version of its weights
// about once, so rounding it while packing saves writing it (and, with
// the other form, RoundMatrixBoth's second half) and reading it back. rd
// and layer check, as blockWeights' caller does, that the weights are
// the ones the forward read (wRead.backCache).
func mmBlockedWeights[T compute.Float](r *roles, rd wRead, layer string, m, n, k int, a []T, lda int, wq, c []T) bool {
	if r.wB == nil || r.f.Accum != quant.AccumFP32 || !compute.PacksBlocks(r.wB) {
		return false
	}
	a32, ok := any(a).([]float32)
	if !ok {
		return false
	}
	rd.backCache(r, layer)
	return compute.GemmBlockedB(false, false, m, n, k, a32, lda, any(wq).([]float32), n, r.wB, any(c).([]float32), n)
}
