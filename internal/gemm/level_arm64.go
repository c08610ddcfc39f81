//go:build arm64 && !purego && !openblas

package gemm

// maxLevel is the highest level the package has kernels for.
const maxLevel = levelNEON

// useLevel sets the float32 driver's micro-kernel to that of level l
// (the float64 GEMM and the quire's row loops stay in Go on arm64).
func useLevel(l level) {
	levelInUse = l
	s := kernels[float32]()
	sgemmDriver.kernelInfo = s[len(s)-1]
}
