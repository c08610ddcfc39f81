//go:build amd64 && !purego

package quant

// blockAVX2 (level_amd64.go) says whether the 8-lane block kernels of block_kernel_amd64.s
// may run. Each does what the Go kernel of the same name without the
// suffix does (block_kernel.go), bit for bit (TestBlockKernelsAgree).

// absMaxBlocksAVX2 is blockAbsMaxGo for nb whole blocks of k values, k a
// multiple of 8.
//
//go:noescape
func absMaxBlocksAVX2(amax *uint32, src *float32, nb, k int, finite bool)

// absMaxColsAVX2 is absMaxColsGo for n values, n a multiple of 8.
//
//go:noescape
func absMaxColsAVX2(am *uint32, src *float32, n int, finite bool)

// mxRoundBlocksAVX2 is mxRoundBlocksGo for nb whole blocks of k values, k
// a multiple of 8.
//
//go:noescape
func mxRoundBlocksAVX2(dst, src *float32, nb, k int, cc *mxCols, dr uint32)

// mxRoundColsAVX2 is mxRoundColsGo for n values, n a multiple of 8.
//
//go:noescape
func mxRoundColsAVX2(dst, src *float32, n int, cc *mxCols, dr uint32)

// absMaxBlocksAVX512, absMaxColsAVX512, mxRoundBlocksAVX512 and
// mxRoundColsAVX512 are the same kernels on 16 lanes (k and n multiples
// of 16). They run at the AVX-512 level (positAVX512, which that level
// sets for every 16-lane rounding kernel).
//
//go:noescape
func absMaxBlocksAVX512(amax *uint32, src *float32, nb, k int, finite bool)

//go:noescape
func absMaxColsAVX512(am *uint32, src *float32, n int, finite bool)

//go:noescape
func mxRoundBlocksAVX512(dst, src *float32, nb, k int, cc *mxCols, dr uint32)

// mxConstsAVX2 and mxConstsAVX512 set cc's entries to mxConstsOf of the
// n maxima at am (n a multiple of 8 or 16), 8 or 16 at a time, as long as
// every maximum of the 8 or 16 is a NaN block's or has its exponent byte
// in [p.eLo, p.eHi]; they return how many entries they set.
//
//go:noescape
func mxConstsAVX2(am *uint32, n int, cc *mxCols, p *mxParams) int

//go:noescape
func mxConstsAVX512(am *uint32, n int, cc *mxCols, p *mxParams) int

//go:noescape
func mxRoundColsAVX512(dst, src *float32, n int, cc *mxCols, dr uint32)

func blockAbsMax(amax []uint32, s []float32, K int, finite bool) {
	n := 0
	switch {
	case positAVX512 && K%16 == 0:
		if n = len(s) / K; n > 0 {
			absMaxBlocksAVX512(&amax[0], &s[0], n, K, finite)
		}
	case blockAVX2 && K%8 == 0:
		if n = len(s) / K; n > 0 {
			absMaxBlocksAVX2(&amax[0], &s[0], n, K, finite)
		}
	}
	blockAbsMaxGo(amax[n:], s[n*K:], K, finite)
}

func colsAbsMax(am []uint32, s []float32, finite bool) {
	n := 0
	switch {
	case positAVX512:
		if n = len(s) &^ 15; n > 0 {
			absMaxColsAVX512(&am[0], &s[0], n, finite)
		}
	case blockAVX2:
		if n = len(s) &^ 7; n > 0 {
			absMaxColsAVX2(&am[0], &s[0], n, finite)
		}
	}
	absMaxColsGo(am[n:], s[n:], finite)
}

func mxRoundBlocks(d, s []float32, K int, cc *mxCols, dr uint32) int {
	n := len(s) / K
	switch {
	case n == 0:
	case positAVX512 && K%16 == 0:
		mxRoundBlocksAVX512(&d[0], &s[0], n, K, cc, dr)
		return n
	case blockAVX2 && K%8 == 0:
		mxRoundBlocksAVX2(&d[0], &s[0], n, K, cc, dr)
		return n
	}
	mxRoundBlocksGo(d, s, K, n, cc, dr)
	return n
}

// mxConstsVec sets the constants of a prefix of am as mxConstsAVX2 or
// mxConstsAVX512 does and returns its length.
func mxConstsVec(cc *mxCols, am []uint32, p *mxParams) int {
	switch {
	case positAVX512:
		if n := len(am) &^ 15; n > 0 {
			return mxConstsAVX512(&am[0], n, cc, p)
		}
	case blockAVX2:
		if n := len(am) &^ 7; n > 0 {
			return mxConstsAVX2(&am[0], n, cc, p)
		}
	}
	return 0
}

func mxRoundCols(d, s []float32, cc *mxCols, dr uint32) int {
	n := 0
	switch {
	case positAVX512:
		if n = len(s) &^ 15; n > 0 {
			mxRoundColsAVX512(&d[0], &s[0], n, cc, dr)
		}
	case blockAVX2:
		if n = len(s) &^ 7; n > 0 {
			mxRoundColsAVX2(&d[0], &s[0], n, cc, dr)
		}
	}
	return n
}

// positScaleBlocksAVX2 is toElem (out false) or fromElem (out true) of a
// block posit kernel for nb whole blocks of k values, k a multiple of 8,
// block j with factor f[j].
//
//go:noescape
func positScaleBlocksAVX2(dst, src *float32, nb, k int, f *float32, out bool)

// positScaleColsAVX2 is the same for n values, n a multiple of 8, value
// c with factor f[c].
//
//go:noescape
func positScaleColsAVX2(dst, src *float32, n int, f *float32, out bool)

// positScaleBlocks scales the whole blocks of s into d as
// positScaleBlocksAVX2 does, where it can, and returns how many it did.
func positScaleBlocks(d, s []float32, K int, f []float32, out bool) int {
	n := len(s) / K
	if !blockAVX2 || K%8 != 0 || n == 0 {
		return 0
	}
	positScaleBlocksAVX2(&d[0], &s[0], n, K, &f[0], out)
	return n
}

// positScaleCols scales s into d as positScaleColsAVX2 does, where it
// can, and returns how many values it did.
func positScaleCols(d, s []float32, f []float32, out bool) int {
	n := len(s) &^ 7
	if !blockAVX2 || n == 0 {
		return 0
	}
	positScaleColsAVX2(&d[0], &s[0], n, &f[0], out)
	return n
}
