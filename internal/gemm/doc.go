// Package gemm holds the kernels behind the quantized layers of nn:
// matrix multiply (SGEMM/DGEMM), image-to-column packing for convolutions,
// and exact (quire) and per-operation-rounded (per-op) matrix multiplies.
// Nothing above package compute calls it: compute's CPU backend does.
//
// The float32 and float64 matrix multiplies of the default build are this
// package's own, with no cgo: one generic driver (sgemm.go) of packed
// panels around register-blocked micro-kernels in Go assembly for AVX-512
// and AVX2 (sgemm_amd64.s and dgemm_amd64.s, written by sgemm_gen.go) and
// a portable Go kernel elsewhere, split across goroutines by blocks of C.
// Each element of C is one chain of FMAs over the sum, each rounded to the
// element type, so its bits are the same on every kernel, blocking,
// alignment and number of goroutines. Built with the tag openblas (and
// cgo), both call OpenBLAS through gonum.org/v1/netlib instead; Backend
// reports which one is in use. Matrices are row-major, as in gonum's blas
// package.
//
// The slice written to is always the first argument, named dst (or c for
// the BLAS-shaped calls).
package gemm
