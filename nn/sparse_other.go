//go:build !amd64 || purego

package nn

func maskAbsAVX512(keep *bool, y, w *float32, n int, t *maskTable) int {
	panic("nn: no AVX-512 mask kernel")
}

func applyMaskAVX512(dst, src *float32, keep *bool, n int) {
	panic("nn: no AVX-512 mask kernel")
}

// sparseAVX512 is false: the generic masks run.
var sparseAVX512 = false
