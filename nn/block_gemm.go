package nn

import (
	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// Block-rounded operands of a product are rounded as the GEMM packs them
// where it can (compute.GemmBlocked): the rounded operand is never
// written to memory and read back, and a layer's weights need no rounded
// copy in the weight cache. The bits are those of rounding the operand
// whole, then the product, but for the signs of NaNs in blocks holding a
// NaN or an infinity (quant.BlockFormat.RoundPanels).

// packsBlocks reports whether a product's operand of type T can be
// rounded by q (a block format, blocks along the sum) as the product
// packs it: float32 data, float32 sums, and compute.PacksBlocks(q) (the
// CPU backend, rounding to nearest).
func packsBlocks[T compute.Float](r *roles, q *compute.Rounder) bool {
	_, f32 := any(T(0)).(float32)
	return q != nil && f32 && r.f.Accum == quant.AccumFP32 && compute.PacksBlocks(q)
}

// packedOr returns an operand of a product for mmBlocked: src itself and
// q, for the product to round src by q as it packs it, if it can
// (packsBlocks); else src rounded by q (blocks along axis of the
// rows×cols matrix) into *buf, or src if q is nil (blocked), and nil.
func packedOr[T compute.Float](r *roles, q *compute.Rounder, buf *[]T, src []T, rows, cols int, axis quant.Axis) ([]T, *compute.Rounder) {
	if packsBlocks[T](r, q) {
		return src, q
	}
	return blocked(q, buf, src, rows, cols, axis), nil
}

// mmBlocked is mm with the operands a and b rounded by qa and qb (nil:
// used as they are) with their blocks along the sum as the product packs
// them (packedOr gives them).
func mmBlocked[T compute.Float](r *roles, acc *compute.Rounder, tA, tB bool, m, n, k int, a []T, lda int, qa *compute.Rounder, b []T, ldb int, qb *compute.Rounder, c []T) {
	if qa == nil && qb == nil {
		mm(r, acc, tA, tB, m, n, k, a, lda, b, ldb, c)
		return
	}
	a32, b32, c32 := any(a).([]float32), any(b).([]float32), any(c).([]float32)
	if !compute.GemmBlocked(tA, tB, m, n, k, a32, lda, qa, b32, ldb, qb, c32, n) {
		panic("nn: a blocked product the backend does not take") // packsBlocks held
	}
}
