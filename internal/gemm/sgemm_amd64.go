//go:build amd64 && !purego && !openblas

package gemm

import "unsafe"

//go:generate go run sgemm_gen.go

// The assembly kernels' tiles (sgemm_gen.go).
const (
	mrAVX512, nrAVX512   = 8, 32
	mrAVX2, nrAVX2       = 6, 16
	mrAVX512d, nrAVX512d = 8, 16
	mrAVX2d, nrAVX2d     = 6, 8
)

//go:noescape
func sgemmKernelAVX512(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)

//go:noescape
func sgemmKernelAVX2(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)

//go:noescape
func dgemmKernelAVX512(k int, a *float64, as int, b *float64, bs int, c *float64, ldc int, alpha, beta float64, load bool)

//go:noescape
func dgemmKernelAVX2(k int, a *float64, as int, b *float64, bs int, c *float64, ldc int, alpha, beta float64, load bool)

// transpose8 sets dst[(8b+i)·ldd + j] = src[j·lds + 8b+i] for i, j < 8
// and each block b < n/8: eight rows of src, n columns, transposed.
//
//go:noescape
func transpose8(dst *float32, ldd int, src *float32, lds int, n int)

// transpose6 sets dst[(8b+i)·ldd + j] = src[j·lds + 8b+i] for i < 8,
// j < 6 and each block b < n/8: six rows of src, n columns, transposed.
//
//go:noescape
func transpose6(dst *float32, ldd int, src *float32, lds int, n int)

// transpose4d sets dst[(4b+i)·ldd + j] = src[j·lds + 4b+i] for i, j < 4
// and each block b < n/4: four rows of src, n columns, transposed.
//
//go:noescape
func transpose4d(dst *float64, ldd int, src *float64, lds int, n int)

// transpose8d is transpose4d for blocks of 8×8 (AVX-512).
//
//go:noescape
func transpose8d(dst *float64, ldd int, src *float64, lds int, n int)

// copyRows copies rows rows of width bytes, from src, lds bytes apart, to
// dst, ldd bytes apart, for width 24, 32, 48, 64 or 128 (AVX).
//
//go:noescape
func copyRows(dst unsafe.Pointer, ldd int, src unsafe.Pointer, lds int, width int, rows int)

// kernels lists the micro-kernels of T this machine can run at the level
// in use, the driver's (the widest) last; the tests run each.
func kernels[T Float]() []kernelInfo[T] {
	s := []kernelInfo[float32]{{"go", kernelGo[float32], mrGo, nrGo}}
	d := []kernelInfo[float64]{{"go", kernelGo[float64], mrGo, nrGo}}
	if levelInUse >= levelAVX2 {
		s = append(s, kernelInfo[float32]{"avx2", sgemmKernelAVX2, mrAVX2, nrAVX2})
		d = append(d, kernelInfo[float64]{"avx2", dgemmKernelAVX2, mrAVX2d, nrAVX2d})
	}
	if levelInUse >= levelAVX512 {
		s = append(s, kernelInfo[float32]{"avx512", sgemmKernelAVX512, mrAVX512, nrAVX512})
		d = append(d, kernelInfo[float64]{"avx512", dgemmKernelAVX512, mrAVX512d, nrAVX512d})
	}
	if k, ok := any(s).([]kernelInfo[T]); ok {
		return k
	}
	return any(d).([]kernelInfo[T])
}
