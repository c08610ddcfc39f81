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
