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

// mmBlockedWeights sets c (m × n) to a (m × k, row stride lda) times
// the weights wq rounded by r.wB with their blocks along the sum, rounding
// them as the product packs them (compute.GemmBlockedB), and reports
// true; or reports false, doing nothing, where it cannot (no block format,
// sums other than fp32, float64 data, another backend, stochastic
// rounding): the caller then multiplies by blockWeights' form. The
// weights are k × n (the input-gradient product, blocked down their
// columns) or, if tB, n × k and transposed (the forward product, blocked
// along their rows). A layer's products read each form of each version
// of its weights one to three times; rounding while packing, in the cache
// (about 0.25 ns a value), costs less than rounding a form into memory
// once (1.1–1.3 ns a value, reading the weights and writing the form)
// and reading it back. back checks, as blockWeights' callers do, that the
// weights are the ones the forward read (wRead.backCache) before a
// backward product.
func mmBlockedWeights[T compute.Float](r *roles, back bool, rd wRead, layer string, tB bool, m, n, k int, a []T, lda int, wq, c []T) bool {
	if r.wB == nil || r.f.Accum != quant.AccumFP32 || !compute.PacksBlocks(r.wB) {
		return false
	}
	a32, ok := any(a).([]float32)
	if !ok {
		return false
	}
	if back {
		rd.backCache(r, layer)
	}
	ldw := n
	if tB {
		ldw = k
	}
	return compute.GemmBlockedB(false, tB, m, n, k, a32, lda, any(wq).([]float32), ldw, r.wB, any(c).([]float32), n)
}
