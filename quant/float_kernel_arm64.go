//go:build arm64 && !purego

package quant

// floatNEON (level_arm64.go) says whether roundFloatNEON
// (float_kernel_arm64.s), the 4-lane form of floatKernel.round, may run.

// roundFloatNEON rounds n elements, n a multiple of 4, from src to dst.
//
//go:noescape
func roundFloatNEON(dst, src *float32, n int, k *floatKernel)

func roundFloatSlice(dst, src []float32, k *floatKernel) {
	n := 0
	if floatNEON {
		n = len(src) &^ 3
		if n > 0 {
			roundFloatNEON(&dst[0], &src[0], n, k)
		}
	}
	k.roundSliceGo(dst[n:], src[n:])
}
