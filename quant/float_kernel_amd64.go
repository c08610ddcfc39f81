//go:build amd64 && !purego

package quant

// floatAVX2 (level_amd64.go) says whether roundFloatAVX2
// (float_kernel_amd64.s), the 8-lane form of floatKernel.round, may run.

// roundFloatAVX2 rounds n elements, n a multiple of 8, from src to dst.
//
//go:noescape
func roundFloatAVX2(dst, src *float32, n int, k *floatKernel)

func roundFloatSlice(dst, src []float32, k *floatKernel) {
	n := 0
	if floatAVX2 {
		n = len(src) &^ 7
		if n > 0 {
			roundFloatAVX2(&dst[0], &src[0], n, k)
		}
	}
	k.roundSliceGo(dst[n:], src[n:])
}
