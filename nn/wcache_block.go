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

// packedWeights returns the weights for a product as packedOr returns
// an operand: wq itself and r.wB, for the product to round them as it
// packs them, if it can; else blockWeights' form (with cache) and nil. A
// layer's products read each form of each version of its weights one to
// three times; rounding them while packing, in the cache (about 0.25 ns
// a value), costs less than rounding a form into memory once (1.1–1.3 ns
// a value: reading the weights and writing the form) and reading it back.
func packedWeights[T compute.Float](r *roles, buf *[]T, w, wq []T, rows, cols int, axis quant.Axis, f weightForm, cache bool) ([]T, *compute.Rounder) {
	if packsBlocks[T](r, r.wB) {
		return wq, r.wB
	}
	return blockWeights(r, buf, w, wq, rows, cols, axis, f, cache), nil
}
