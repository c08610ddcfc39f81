// Package compute is the seam between the layers and the kernels that do
// their arithmetic. Every matrix multiply (float, quire and per-op),
// image-to-column packing, rounding to a quant format, element-wise
// training kernel (Adam, the activations, the loss scaler's count) and
// layer kernel (normalisation, pooling, padding, rearrangements, biases)
// that nn, nn/qgraph, gan and scaling run goes through a Backend; the one
// backend today is CPU, which wraps the kernels of internal/gemm,
// internal/vec and quant and runs the layer kernels of this package
// (*_kernel.go).
//
// As gonum's blas64 does, the package holds one implementation, CPU{}
// unless Use installs another before any work starts, and its functions
// forward to it: Gemm, Im2colBatch and Round for one element type are one
// interface call, which allocates nothing. The generic functions
// (Gemm[T], Im2col[T], RoundSlice[T], ...) pick the float32 or float64
// method by element type: float32 for training, float64 for gradient
// checks. docs/adding-a-backend.md shows how to add a backend.
//
// ForEaches and ForRanges, the goroutine fan-out that the CPU kernels,
// nn's activations and gan's Adam share, are plain functions, not part of
// a Backend.
//
// The slice written to is the first argument after any Workspace, named
// dst (c for the BLAS-shaped calls, y or dx for the norm kernels, which
// also write the float64 slices they keep for the backward pass; Adam's
// kernels update their parameters and moments in place).
package compute
