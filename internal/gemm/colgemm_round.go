package gemm

import "github.com/positgan/positgan/quant"

// roundedCopy returns a copy of the operand x (row stride ldx) rounded to
// blk with its blocks along the sum, and the copy's row stride, or x and
// ldx if blk is zero: x is r × k with the sum along its rows if alongRow,
// else k × r with the sum down its columns.
func roundedCopy(alongRow bool, r, k int, x []float32, ldx int, blk quant.BlockFormat) ([]float32, int) {
	if blk.IsZero() {
		return x, ldx
	}
	rows, cols, axis := r, k, quant.AlongRow
	if !alongRow {
		rows, cols, axis = k, r, quant.AlongColumn
	}
	t := make([]float32, rows*cols)
	for i := range rows {
		copy(t[i*cols:(i+1)*cols], x[i*ldx:i*ldx+cols])
	}
	blk.RoundMatrix(t, t, rows, cols, axis, quant.Nearest, nil)
	return t, max(1, cols)
}
