//go:build (!amd64 && !arm64) || purego

package quant

func blockAbsMax(amax []uint32, s []float32, K int, finite bool) {
	blockAbsMaxGo(amax, s, K, finite)
}

func colsAbsMax(am []uint32, s []float32, finite bool) { absMaxColsGo(am, s, finite) }

func mxRoundBlocks(d, s []float32, K int, cc *mxCols, dr uint32) int {
	n := len(s) / K
	mxRoundBlocksGo(d, s, K, n, cc, dr)
	return n
}

func mxConstsVec(cc *mxCols, am []uint32, p *mxParams) int { return 0 }

func mxRoundCols(d, s []float32, cc *mxCols, dr uint32) int {
	mxRoundColsGo(d, s, cc, dr)
	return len(s)
}

func positScaleBlocks(d, s []float32, K int, f []float32, out bool) int { return 0 }

func positScaleCols(d, s []float32, f []float32, out bool) int { return 0 }
