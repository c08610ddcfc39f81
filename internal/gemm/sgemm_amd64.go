//go:build amd64 && !purego && !openblas

package gemm

import "golang.org/x/sys/cpu"

//go:generate go run sgemm_gen.go

// The assembly kernels' tiles (sgemm_gen.go).
const (
	mrAVX512, nrAVX512 = 8, 32
	mrAVX2, nrAVX2     = 6, 16
)

//go:noescape
func sgemmKernelAVX512(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)

//go:noescape
func sgemmKernelAVX2(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)

// transpose8 sets dst[(8b+i)·ldd + j] = src[j·lds + 8b+i] for i, j < 8
// and each block b < n/8: eight rows of src, n columns, transposed.
//
//go:noescape
func transpose8(dst *float32, ldd int, src *float32, lds int, n int)

func init() {
	switch {
	case cpu.X86.HasAVX512F:
		kernel, kernelMR, kernelNR, kernelName = sgemmKernelAVX512, mrAVX512, nrAVX512, "avx512"
		hasTranspose8 = true
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		kernel, kernelMR, kernelNR, kernelName = sgemmKernelAVX2, mrAVX2, nrAVX2, "avx2"
		hasTranspose8 = true
	}
}

// kernels lists the micro-kernels this machine can run, for tests.
func kernels() []kernelInfo {
	ks := []kernelInfo{{"go", kernelGo, mrGo, nrGo}}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, kernelInfo{"avx2", sgemmKernelAVX2, mrAVX2, nrAVX2})
	}
	if cpu.X86.HasAVX512F {
		ks = append(ks, kernelInfo{"avx512", sgemmKernelAVX512, mrAVX512, nrAVX512})
	}
	return ks
}
