package gemm

import "github.com/positgan/positgan/quant"

// roundedCopy returns a copy of the operand x (row stride ldx) rounded to
// blk with its blocks along the sum, and the copy's row stride, or x and
// ldx if blk is zero: x is r × k with the sum along its rows if alongRow,
// else k × r with the sum down its columns.
func roundedCopy(alongRow bool, r, k int, x []float32, ldx int, blk quant.BlockFormat) ([]float32, int) {
	return roundedCopyIn(nil, alongRow, r, k, x, ldx, blk)
}

// roundedCopyIn is roundedCopy into *buf (a new slice if buf is nil).
func roundedCopyIn(buf *[]float32, alongRow bool, r, k int, x []float32, ldx int, blk quant.BlockFormat) ([]float32, int) {
	if blk.IsZero() {
		return x, ldx
	}
	rows, cols, axis := r, k, quant.AlongRow
	if !alongRow {
		rows, cols, axis = k, r, quant.AlongColumn
	}
	if buf == nil {
		buf = new([]float32)
	}
	t := grow(buf, rows*cols)
	for i := range rows {
		copy(t[i*cols:(i+1)*cols], x[i*ldx:i*ldx+cols])
	}
	blk.RoundMatrix(t, t, rows, cols, axis, quant.Nearest, nil)
	return t, max(1, cols)
}
