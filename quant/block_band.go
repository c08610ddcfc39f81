package quant

import (
	"math"
	"unsafe"
)

// mxRowParams let the fused row kernels (block_band_amd64.s) round a
// group of blocks of 32 at once: every block's exponent byte E (of its
// largest magnitude) in (lo1, hi1) takes the fast rounding, with
// minNorm = (E+cMN)<<23 and maxBits = E<<23 + cMB (mxParams), and d the
// shift of the element's mantissa (23-m). hi1-1 is the smaller of
// mxParams' eHi and 254-d (maxBits below MXFAST8's bound: its exponent
// byte is E). The layout is shared with block_band_amd64.s.
type mxRowParams struct {
	lo1, hi1, cMN int32
	cMB, d        uint32
}

func (k *blockKernel) rowParams() mxRowParams {
	d := uint32(23 - k.m)
	return mxRowParams{
		lo1: int32(k.mp.eLo) - 1,
		hi1: int32(min(k.mp.eHi, 254-d)) + 1,
		cMN: k.mp.cMN,
		cMB: k.mp.cMB,
		d:   d,
	}
}

// RoundMatrixBoth sets rowDst to the rows×cols matrix src rounded to b
// to nearest with blocks along its rows, and colDst to src rounded with
// blocks down its columns: what RoundMatrix gives for each axis, bit for
// bit, in one sweep over src (block-high bands of rows, each rounded both
// ways while it is in cache), for a matrix that is read both ways (a
// layer's weights: forward and backward products). rowDst and colDst must
// not overlap src or each other.
func (b BlockFormat) RoundMatrixBoth(rowDst, colDst, src []float32, rows, cols int) {
	b.mustBeValid()
	checkMatrix(len(rowDst), len(src), rows, cols)
	checkMatrix(len(colDst), len(src), rows, cols)
	if overlap(rowDst, src) || overlap(colDst, src) || overlap(rowDst, colDst) {
		panic("quant: RoundMatrixBoth's destinations overlap")
	}
	k := b.kernel(Nearest, nil)
	var sc blockScratch
	K := b.block
	for r0 := 0; r0 < rows; r0 += K {
		r1 := min(r0+K, rows)
		for i := r0; i < r1; i++ {
			k.roundRow(rowDst[i*cols:(i+1)*cols], src[i*cols:(i+1)*cols], &sc)
		}
		for c0 := 0; c0 < cols; c0 += blockChunk {
			k.roundColumnBand(colDst, src, cols, c0, min(blockChunk, cols-c0), r0, r1, &sc)
		}
	}
}

// overlap reports whether a and b share memory.
func overlap(a, b []float32) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b))*4 && b0 < a0+uintptr(len(a))*4
}

// roundLastBlock rounds s, a chunk's last partial block when the vector
// kernels have done the rest (or its only one), into d with the fused
// kernel and reports true, or
// reports false, having written nothing, if the block needs the two-pass
// way (its NaNs then lose their signs, as the general path's decision for
// the chunk's last blocks would have it). Scalar: a row's tail of a few
// values is not worth the vector set-up.
func (k *blockKernel) roundLastBlock(d, s []float32) bool {
	c, ok := k.mxConstsOf(absMaxGo(s, false))
	if !ok {
		return false
	}
	dr := uint32(23 - k.m)
	d = d[:len(s)]
	for i, v := range s {
		d[i] = math.Float32frombits(c.round(math.Float32bits(v), dr))
	}
	return true
}
