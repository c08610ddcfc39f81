//go:build !openblas

package gemm

// The default backend, without cgo: this package's own GEMMs (sgemm.go).
// Built with the tag openblas, blas_openblas.go replaces it.

// backend names the float32 micro-kernel: avx512, avx2 or go (sgemm.go).
// The float64 GEMM (sgemm.go's driver too) uses the same instruction set.
func backend() string { return sgemmDriver.name }
