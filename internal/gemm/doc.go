// Package gemm holds the kernels behind the quantized layers of models/nn:
// matrix multiply (SGEMM/DGEMM), image-to-column packing for convolutions,
// rounding of the packed operands to a quant.Format, and exact (quire) and
// per-operation-rounded (per-op) matrix multiplies.
//
// Matrix multiply uses gonum's pure-Go BLAS by default. Built with the tag
// openblas (and cgo), it calls OpenBLAS through gonum.org/v1/netlib instead;
// Backend reports which one is linked. Matrices are row-major, as in gonum's
// blas package.
//
// The slice written to is always the first argument, named dst (or c for
// the BLAS-shaped calls).
package gemm
