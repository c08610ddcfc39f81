//go:build amd64 && !purego

package quant

// floatAVX2 (level_amd64.go) says whether roundFloatAVX2
// (float_kernel_amd64.s), the 8-lane form of floatKernel.round, may run.

// roundFloatAVX2 rounds n elements, n a multiple of 8, from src to dst.
//
//go:noescape
func roundFloatAVX2(dst, src *float32, n int, k *floatKernel)

// roundFloatAVX512 rounds n elements, n a multiple of 16, from src to
// dst: roundFloatAVX2 on 16 lanes, with masks for the blends. It runs at
// the AVX-512 level (positAVX512, which that level sets for every
// 16-lane rounding kernel).
//
//go:noescape
func roundFloatAVX512(dst, src *float32, n int, k *floatKernel)

func roundFloatSlice(dst, src []float32, k *floatKernel) {
	n := 0
	if positAVX512 {
		if n = len(src) &^ 15; n > 0 {
			roundFloatAVX512(&dst[0], &src[0], n, k)
		}
	}
	if floatAVX2 {
		if m := len(src) &^ 7; m > n {
			roundFloatAVX2(&dst[n], &src[n], m-n, k)
			n = m
		}
	}
	k.roundSliceGo(dst[n:], src[n:])
}
