//go:build !openblas

package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// backend names the float32 micro-kernel: avx512, avx2 or go (sgemm.go).
func backend() string { return kernelName }

// dgemm (float64, for gradient checks) stays gonum's.
func dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
