//go:build !amd64 || purego

package nn

import "github.com/positgan/positgan/quant"

func maskAbsAVX512(keep *bool, y, w *float32, n int, t *maskTable) int {
	panic("nn: no AVX-512 mask kernel")
}

func applyMaskAVX512(dst, src *float32, keep *bool, n int) {
	panic("nn: no AVX-512 mask kernel")
}

func maskAbsAVX2(keep *bool, y, w *float32, n int, t *maskTable) int {
	panic("nn: no AVX2 mask kernel")
}

func applyMaskAVX2(dst, src *float32, keep *bool, n int) {
	panic("nn: no AVX2 mask kernel")
}

// sparseLevel is generic: the generic masks run.
var sparseLevel = quant.LevelGeneric
