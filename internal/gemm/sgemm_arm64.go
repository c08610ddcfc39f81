//go:build arm64 && !purego && !openblas

package gemm

// The NEON kernel's tile (sgemm_arm64.s): 8 rows of 12 columns, 24
// accumulators of 4 lanes.
const mrNEON, nrNEON = 8, 12

// sgemmKernelNEON is kernelGo for float32 on an mrNEON×nrNEON tile: each
// element of C is the same chain of FMAs (FMLA rounds once, as fma32
// does), so the bits are kernelGo's.
//
//go:noescape
func sgemmKernelNEON(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)

// kernels lists the micro-kernels of T this machine can run at the level
// in use, the driver's (the widest) last; the tests run each.
func kernels[T Float]() []kernelInfo[T] {
	s := []kernelInfo[float32]{{"go", kernelGo[float32], mrGo, nrGo}}
	d := []kernelInfo[float64]{{"go", kernelGo[float64], mrGo, nrGo}}
	if levelInUse >= levelNEON {
		s = append(s, kernelInfo[float32]{"neon", sgemmKernelNEON, mrNEON, nrNEON})
	}
	if k, ok := any(s).([]kernelInfo[T]); ok {
		return k
	}
	return any(d).([]kernelInfo[T])
}
