package compute

import "github.com/positgan/positgan/quant"

// RoundMatrixBoth sets rowDst and colDst to the rows×cols matrix src
// rounded by the block Rounder q along its rows and down its columns, as
// RoundMatrix does for each axis, bit for bit, in one sweep over src
// (quant.BlockFormat.RoundMatrixBoth), and reports true; or reports
// false, having written nothing, if it cannot: q is not a block rounder
// to nearest, or the backend is not the CPU (which would round each way
// on its own). The three slices must not overlap.
func RoundMatrixBoth(q *Rounder, rowDst, colDst, src []float32, rows, cols int) bool {
	if q == nil || q.b.IsZero() || q.mode != quant.Nearest {
		return false
	}
	if _, ok := impl.(CPU); !ok {
		return false
	}
	q.b.RoundMatrixBoth(rowDst, colDst, src, rows, cols)
	return true
}
