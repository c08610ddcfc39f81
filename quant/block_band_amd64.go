//go:build amd64 && !purego

package quant

// absMaxBandAVX2 sets am[c] to the largest of am[c] and |src[r·stride+c]|
// (float32 bits, every value counting: absMaxColsGo with finite false)
// over the rows r < rows, for c < n; rows >= 1, and am's array holds
// n rounded up to 8 entries (the last vector is read whole, written under
// a mask).
//
//go:noescape
func absMaxBandAVX2(am *uint32, src *float32, n, rows, stride int)

// mxRoundBandAVX2 rounds the values src[r·stride+c], r < rows, c < n,
// into dst[r·stride+c] with column c's constants in cc, as mxRoundColsGo
// does row by row, and reports true; or reports false, having written
// nothing, if a column is a NaN column or its maxBits has an exponent
// byte at or above 255-d. It relies on each column's constants being
// mxConstsOf of its largest magnitude over these rows (a clamp of the
// kernel in block_kernel_amd64.s is then a no-op and left out); cc holds
// n rounded up to 8 entries.
//
//go:noescape
func mxRoundBandAVX2(dst, src *float32, n, rows, stride int, cc *mxCols, dr uint32) bool

// absMaxBandAVX512 and mxRoundBandAVX512 are the same on 16 lanes (am and
// cc hold n rounded up to 16 entries).
//
//go:noescape
func absMaxBandAVX512(am *uint32, src *float32, n, rows, stride int)

//go:noescape
func mxRoundBandAVX512(dst, src *float32, n, rows, stride int, cc *mxCols, dr uint32) bool

// absMaxBand sets am[c] = max(am[c], |s[r·stride+c]|) (float32 bits,
// every value counting) for r < rows, c < len(am), in one call, and
// reports true, or reports false, having done nothing, if no vector kernel
// runs (or am's array is too short for its last vector).
func absMaxBand(am []uint32, s []float32, rows, stride int) bool {
	n := len(am)
	if n == 0 || rows == 0 || cap(am) < (n+15)&^15 {
		return false
	}
	_ = s[(rows-1)*stride+n-1]
	switch {
	case positAVX512:
		absMaxBandAVX512(&am[0], &s[0], n, rows, stride)
	case blockAVX2:
		absMaxBandAVX2(&am[0], &s[0], n, rows, stride)
	default:
		return false
	}
	return true
}

// mxRoundBand rounds rows r < rows of columns c < w of s into d (both
// with row pitch stride) with column c's constants in cc, which must be
// mxConstsOf of column c's largest magnitude over those rows, in one call,
// and reports true; or reports false, having written nothing, if no
// vector kernel runs or some column needs more than the fast kernel (a
// NaN column, a scale near float32's top).
func mxRoundBand(d, s []float32, w, rows, stride int, cc *mxCols, dr uint32) bool {
	if w == 0 || rows == 0 || (w+15)&^15 > blockChunk {
		return false
	}
	last := (rows-1)*stride + w - 1
	_, _ = d[last], s[last]
	switch {
	case positAVX512:
		return mxRoundBandAVX512(&d[0], &s[0], w, rows, stride, cc, dr)
	case blockAVX2:
		return mxRoundBandAVX2(&d[0], &s[0], w, rows, stride, cc, dr)
	}
	return false
}

// mxRowAVX2 rounds the nb whole blocks of 32 at src into dst, eight at a
// time, as roundRowFused does, as long as all eight blocks of a group
// take the fast rounding (mxRowParams), and returns how many blocks it
// rounded; tmp holds 16 entries of scratch.
//
//go:noescape
func mxRowAVX2(dst, src *float32, nb int, p *mxRowParams, tmp *uint32) int

// mxRowAVX512 is mxRowAVX2 sixteen blocks at a time (tmp holds 32
// entries).
//
//go:noescape
func mxRowAVX512(dst, src *float32, nb int, p *mxRowParams, tmp *uint32) int

// mxRowFast rounds a prefix of whole blocks of 32 of s into d (as long as
// d) as roundRowFused does, in groups the vector kernels take in one
// pass, and returns how many blocks it rounded.
func mxRowFast(d, s []float32, p *mxRowParams, tmp *[blockChunk]uint32) int {
	nb := len(s) / 32
	switch {
	case positAVX512:
		j := 0
		if nb >= 16 {
			_ = d[nb*32-1]
			if j = mxRowAVX512(&d[0], &s[0], nb, p, &tmp[0]); j < nb&^15 {
				return j // stopped at a group
			}
		}
		if nb-j >= 8 { // a last group of eight
			_ = d[nb*32-1]
			j += mxRowAVX2(&d[j*32], &s[j*32], nb-j, p, &tmp[0])
		}
		return j
	case blockAVX2:
		if nb >= 8 {
			_ = d[nb*32-1]
			return mxRowAVX2(&d[0], &s[0], nb, p, &tmp[0])
		}
	}
	return 0
}

// bandKernels says whether this build has the band and fused row kernels
// (for the tests: their vector levels must take ordinary data).
const bandKernels = true
