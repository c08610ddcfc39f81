//go:build arm64 && !purego

package quant

// blockNEON (level_arm64.go) says whether the 4-lane block kernels of
// block_kernel_arm64.s may run. Each does what the Go kernel of the same
// name without the suffix does (block_kernel.go), bit for bit
// (TestBlockKernelsAgree). The block posits' scaling stays in Go.

// absMaxBlocksNEON is blockAbsMaxGo for nb whole blocks of k values, k a
// multiple of 4.
//
//go:noescape
func absMaxBlocksNEON(amax *uint32, src *float32, nb, k int, finite bool)

// absMaxColsNEON is absMaxColsGo for n values, n a multiple of 4.
//
//go:noescape
func absMaxColsNEON(am *uint32, src *float32, n int, finite bool)

// mxRoundBlocksNEON is mxRoundBlocksGo for nb whole blocks of k values, k
// a multiple of 4, with block b's constants at minNorm[b], magic[b],
// maxBits[b] and nan[b] (mxCols).
//
//go:noescape
func mxRoundBlocksNEON(dst, src *float32, nb, k int, minNorm, magic, maxBits, nan *uint32, dr uint32)

// mxRoundColsNEON is mxRoundColsGo for n values, n a multiple of 4, with
// the columns' constants at minNorm, magic, maxBits and nan (mxCols).
//
//go:noescape
func mxRoundColsNEON(dst, src *float32, n int, minNorm, magic, maxBits, nan *uint32, dr uint32)

func blockAbsMax(amax []uint32, s []float32, K int, finite bool) {
	n := 0
	if blockNEON && K%4 == 0 {
		if n = len(s) / K; n > 0 {
			absMaxBlocksNEON(&amax[0], &s[0], n, K, finite)
		}
	}
	blockAbsMaxGo(amax[n:], s[n*K:], K, finite)
}

func colsAbsMax(am []uint32, s []float32, finite bool) {
	n := 0
	if blockNEON {
		if n = len(s) &^ 3; n > 0 {
			absMaxColsNEON(&am[0], &s[0], n, finite)
		}
	}
	absMaxColsGo(am[n:], s[n:], finite)
}

func mxRoundBlocks(d, s []float32, K int, cc *mxCols, dr uint32) int {
	n := len(s) / K
	if blockNEON && K%4 == 0 && n > 0 {
		mxRoundBlocksNEON(&d[0], &s[0], n, K, &cc.minNorm[0], &cc.magic[0], &cc.maxBits[0], &cc.nan[0], dr)
		return n
	}
	mxRoundBlocksGo(d, s, K, n, cc, dr)
	return n
}

func mxConstsVec(cc *mxCols, am []uint32, p *mxParams) int { return 0 }

func mxRoundCols(d, s []float32, cc *mxCols, dr uint32) int {
	if !blockNEON {
		mxRoundColsGo(d, s, cc, dr)
		return len(s)
	}
	n := len(s) &^ 3
	if n > 0 {
		mxRoundColsNEON(&d[0], &s[0], n, &cc.minNorm[0], &cc.magic[0], &cc.maxBits[0], &cc.nan[0], dr)
	}
	return n
}

func positScaleBlocks(d, s []float32, K int, f []float32, out bool) int { return 0 }

func positScaleCols(d, s []float32, f []float32, out bool) int { return 0 }
