//go:build !amd64 || purego

package quant

func absMaxBand(am []uint32, s []float32, rows, stride int) bool { return false }

func mxRoundBand(d, s []float32, w, rows, stride int, cc *mxCols, dr uint32) bool { return false }

func mxRowFast(d, s []float32, p *mxRowParams, tmp *[blockChunk]uint32) int { return 0 }

const bandKernels = false

const maxPanelVecs = 8

func panelFast(width int) bool { return false }

func mxPanelFast(s []float32, width, bands int, p *mxRowParams, tmp *[16 * maxPanelVecs]uint32) int {
	return 0
}
