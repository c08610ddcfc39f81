//go:build !openblas

package gemm

// backend names the float32 micro-kernel: avx512, avx2 or go (sgemm.go).
// The float64 GEMM (sgemm.go's driver too) uses the same instruction set.
func backend() string { return sgemmDriver.name }
