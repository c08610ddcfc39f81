//go:build arm64 && !purego && !openblas

package gemm

// maxLevel is the highest level the package has kernels for.
const maxLevel = levelNEON

// useLevel sets the drivers' micro-kernels to those of level l (the
// quire's and per-op GEMMs' row loops stay in Go on arm64).
func useLevel(l level) {
	levelInUse = l
	s, d := kernels[float32](), kernels[float64]()
	sgemmDriver.kernelInfo, dgemmDriver.kernelInfo = s[len(s)-1], d[len(d)-1]
}
