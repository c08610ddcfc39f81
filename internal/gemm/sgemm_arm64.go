//go:build arm64 && !purego && !openblas

package gemm

// The NEON kernels' tiles (sgemm_arm64.s, dgemm_arm64.s): 8 rows of 12
// float32 or 6 float64 columns, 24 accumulators of 4 or 2 lanes.
const (
	mrNEON, nrNEON   = 8, 12
	mrNEONd, nrNEONd = 8, 6
)

// sgemmKernelNEON is kernelGo for float32 on an mrNEON×nrNEON tile: each
// element of C is the same chain of FMAs (FMLA rounds once, as fma32
// does), so the bits are kernelGo's.
//
//go:noescape
func sgemmKernelNEON(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)

// dgemmKernelNEON is kernelGo for float64 on an mrNEONd×nrNEONd tile.
//
//go:noescape
func dgemmKernelNEON(k int, a *float64, as int, b *float64, bs int, c *float64, ldc int, alpha, beta float64, load bool)

// kernels lists the micro-kernels of T this machine can run at the level
// in use, the driver's (the widest) last; the tests run each.
func kernels[T Float]() []kernelInfo[T] {
	s := []kernelInfo[float32]{{"go", kernelGo[float32], mrGo, nrGo}}
	d := []kernelInfo[float64]{{"go", kernelGo[float64], mrGo, nrGo}}
	if levelInUse >= levelNEON {
		s = append(s, kernelInfo[float32]{"neon", sgemmKernelNEON, mrNEON, nrNEON})
		d = append(d, kernelInfo[float64]{"neon", dgemmKernelNEON, mrNEONd, nrNEONd})
	}
	if k, ok := any(s).([]kernelInfo[T]); ok {
		return k
	}
	return any(d).([]kernelInfo[T])
}
