package nn

import (
	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// packsBlocks reports whether a product's right operand of type T can be
// rounded by q (a block format, blocks along the sum) as the product
// packs it (mmBlockedB) instead of into a copy first: float32 data,
// float32 sums, and compute.PacksBlocks(q) (the CPU backend, rounding to
// nearest). The bits are the same but for the signs of NaNs in blocks
// holding a NaN or an infinity (quant.BlockFormat.RoundPanels).
func packsBlocks[T compute.Float](r *roles, q *compute.Rounder) bool {
	_, f32 := any(T(0)).(float32)
	return q != nil && f32 && r.f.Accum == quant.AccumFP32 && compute.PacksBlocks(q)
}

// mmBlockedB sets c (m × n, row stride n) to op(a)·B, B the k × n matrix
// b (row stride ldb) rounded by q down its columns as the product packs
// it; packsBlocks must hold.
func mmBlockedB[T compute.Float](tA bool, m, n, k int, a []T, lda int, b []T, ldb int, q *compute.Rounder, c []T) {
	a32, b32, c32 := any(a).([]float32), any(b).([]float32), any(c).([]float32)
	if !compute.GemmBlockedB(tA, false, m, n, k, a32, lda, b32, ldb, q, c32, n) {
		panic("nn: a blocked product the backend does not take") // packsBlocks held
	}
}
