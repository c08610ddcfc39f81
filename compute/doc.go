// Package compute is the seam between the layers and the kernels that do
// their arithmetic. Every matrix multiply (float, quire and per-op),
// image-to-column packing, rounding to a quant format and element-wise
// training kernel (Adam, leaky ReLU, tanh, the loss scaler's count) that
// nn, nn/qgraph, gan and scaling run goes through a Backend; the one
// backend today is CPU, which wraps the kernels of internal/gemm,
// internal/vec and quant.
//
// As gonum's blas64 does, the package holds one implementation, CPU{}
// unless Use installs another before any work starts, and its functions
// forward to it: Gemm, Im2colBatch and Round for one element type are one
// interface call, which allocates nothing. The generic functions
// (Gemm[T], Im2col[T], RoundSlice[T], ...) pick the float32 or float64
// method by element type: float32 for training, float64 for gradient
// checks. docs/adding-a-backend.md shows how to add a backend.
//
// ForEaches and ForRanges, the goroutine fan-out that the CPU kernels and
// nn's own loops share, are plain functions, not part of a Backend.
//
// The slice written to is always the first argument, named dst (or c for
// the BLAS-shaped calls).
package compute
