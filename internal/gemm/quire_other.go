//go:build !amd64 || purego || openblas

package gemm

const hasQuireAVX512, hasQuireAVX2 = false, false

func convertRowAVX512(dst *float64, src *float32, n int) (top, key uint32) {
	panic("gemm: no convertRowAVX512")
}

func combineRowAVX512(dst *float32, src *float64, n int) (emin, emax uint64) {
	panic("gemm: no combineRowAVX512")
}

func convertRowAVX2(dst *float64, src *float32, n int) (top, key uint32) {
	panic("gemm: no convertRowAVX2")
}

func combineRowAVX2(dst *float32, src *float64, n int) (emin, emax uint64) {
	panic("gemm: no combineRowAVX2")
}
