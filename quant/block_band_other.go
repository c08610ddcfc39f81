//go:build !amd64 || purego

package quant

func absMaxBand(am []uint32, s []float32, rows, stride int) bool { return false }

func mxRoundBand(d, s []float32, w, rows, stride int, cc *mxCols, dr uint32) bool { return false }
