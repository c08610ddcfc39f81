package compute

import (
	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/quant"
)

// Float is the element type of the kernels: float32 for training, float64
// for gradient checks.
type Float interface{ ~float32 | ~float64 }

// A Workspace keeps the buffers and tables of the exact (quire) and per-op
// GEMMs, and the state of the norm kernels, between calls, so that a
// layer's kernels allocate nothing once warm. The zero value is ready to
// use. A Workspace must not be used by two goroutines at once.
type Workspace struct {
	// The GEMMs' buffers (20 kB or so) are made at their first call: a
	// norm layer's workspace needs none.
	quire *gemm.QuireWorkspace
	perOp *gemm.PerOpWorkspace

	norm32 normJobs[float32]
	norm64 normJobs[float64]

	// Scratch is for a Backend outside this package to keep its own state
	// per workspace; CPU does not use it.
	Scratch any
}

// Gemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices,
// where op(a) is m×k (a transposed when tA), op(b) is k×n and c is m×n
// with row stride ldc: BLAS xGEMM on float32 or float64 slices. It panics
// on bad dimensions as gonum's blas does.
func Gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	switch a := any(a).(type) {
	case []float32:
		impl.Gemm(tA, tB, m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		impl.Gemm64(tA, tB, m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	default:
		panic(errType)
	}
}

// QuireGemm sets c = op(a)·op(b) (m×n, row stride ldc) with every element
// rounded once, to nearest, from the exact dot product: the sum a posit
// quire forms, rounded to f (nil: to T). w keeps the float32 kernel's
// buffers between calls (nil: none); float64 data run a reference kernel.
func QuireGemm[T Float](w *Workspace, f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	switch a := any(a).(type) {
	case []float32:
		impl.QuireGemm(w, f, tA, tB, m, n, k, a, lda, any(b).([]float32), ldb, any(c).([]float32), ldc)
	case []float64:
		impl.QuireGemm64(f, tA, tB, m, n, k, a, lda, any(b).([]float64), ldb, any(c).([]float64), ldc)
	default:
		panic(errType)
	}
}

// PerOpGemm sets c = op(a)·op(b) (m×n, row stride ldc) computing each dot
// product as fine-grained hardware emulation does: s = R(a₀b₀), then
// s = R(s + R(aₗbₗ)) for l = 1, ..., k-1 in that order, where R rounds to
// nearest in f (nil: in T), with f's own arithmetic if it has one
// (quant.ArithmeticOf). w keeps the float32 kernel's tables between calls
// (nil: none); float64 data run a reference kernel.
func PerOpGemm[T Float](w *Workspace, f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	switch a := any(a).(type) {
	case []float32:
		impl.PerOpGemm(w, f, tA, tB, m, n, k, a, lda, any(b).([]float32), ldb, any(c).([]float32), ldc)
	case []float64:
		impl.PerOpGemm64(f, tA, tB, m, n, k, a, lda, any(b).([]float64), ldb, any(c).([]float64), ldc)
	default:
		panic(errType)
	}
}

const errType = "compute: element type must be float32 or float64"
