package compute

import (
	"math/rand/v2"

	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/internal/vec"
	"github.com/positgan/positgan/quant"
)

// CPU is the Backend of this machine's cores: the GEMMs and im2col of
// internal/gemm (its own assembly kernels, or OpenBLAS with the build tag
// openblas), the element-wise kernels of internal/vec and the rounding
// kernels of quant. A backend that replaces only some kernels embeds CPU
// and overrides those methods.
type CPU struct{}

var _ Backend = CPU{}

// Name returns the matrix multiply in use: "avx512", "avx2", "go" or
// "openblas".
func (CPU) Name() string { return gemm.Backend() }

// Gemm is BLAS SGEMM; each element of c is one chain of FMAs over the sum
// (internal/gemm), so its bits do not depend on blocking or threads.
func (CPU) Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm.Gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Gemm64 is BLAS DGEMM.
func (CPU) Gemm64(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gemm.Gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// QuireGemm runs internal/gemm's exact GEMM on w's buffers (fresh ones if
// w is nil).
func (CPU) QuireGemm(w *Workspace, f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if w == nil {
		gemm.QuireGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	if w.quire == nil {
		w.quire = new(gemm.QuireWorkspace)
	}
	w.quire.Gemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
}

// QuireGemm64 runs internal/gemm's reference exact GEMM.
func (CPU) QuireGemm64(f quant.Format, tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	gemm.QuireGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
}

// PerOpGemm runs internal/gemm's per-op GEMM on w's tables (fresh ones if
// w is nil).
func (CPU) PerOpGemm(w *Workspace, f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if w == nil {
		gemm.PerOpGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	if w.perOp == nil {
		w.perOp = new(gemm.PerOpWorkspace)
	}
	w.perOp.Gemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
}

// PerOpGemm64 runs internal/gemm's reference per-op GEMM.
func (CPU) PerOpGemm64(f quant.Format, tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	gemm.PerOpGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
}

// Im2col is internal/gemm's Im2col.
func (CPU) Im2col(dst []float32, ld int, src []float32, g Geom) { gemm.Im2col(dst, ld, src, g) }

// Im2col64 is internal/gemm's Im2col.
func (CPU) Im2col64(dst []float64, ld int, src []float64, g Geom) { gemm.Im2col(dst, ld, src, g) }

// Col2im is internal/gemm's Col2im.
func (CPU) Col2im(dst, src []float32, ld int, g Geom) { gemm.Col2im(dst, src, ld, g) }

// Col2im64 is internal/gemm's Col2im.
func (CPU) Col2im64(dst, src []float64, ld int, g Geom) { gemm.Col2im(dst, src, ld, g) }

// Im2colBatch is internal/gemm's Im2colBatch, spread over the cores.
func (CPU) Im2colBatch(dst, src []float32, n int, g Geom) { gemm.Im2colBatch(dst, src, n, g) }

// Im2colBatch64 is internal/gemm's Im2colBatch, spread over the cores.
func (CPU) Im2colBatch64(dst, src []float64, n int, g Geom) { gemm.Im2colBatch(dst, src, n, g) }

// Col2imBatch is internal/gemm's Col2imBatch, spread over the cores.
func (CPU) Col2imBatch(dst, src []float32, n int, g Geom) { gemm.Col2imBatch(dst, src, n, g) }

// Col2imBatch64 is internal/gemm's Col2imBatch, spread over the cores.
func (CPU) Col2imBatch64(dst, src []float64, n int, g Geom) { gemm.Col2imBatch(dst, src, n, g) }

// Round is quant.RoundTo: the format's vectorised RoundSlice (or
// RoundSliceStochastic).
func (CPU) Round(dst, src []float32, f quant.Format, mode quant.Rounding, rng *rand.PCG) {
	quant.RoundTo(dst, src, f, mode, rng)
}

// Round64 rounds each element once to nearest with f.Round64.
func (CPU) Round64(dst, src []float64, f quant.Format) {
	for i, x := range src {
		dst[i] = f.Round64(x)
	}
}

// RoundBlock is quant.BlockFormat.RoundMatrix.
func (CPU) RoundBlock(dst, src []float32, b quant.BlockFormat, rows, cols int, axis quant.Axis, mode quant.Rounding, rng *rand.PCG) {
	b.RoundMatrix(dst, src, rows, cols, axis, mode, rng)
}

// RoundBlock64 is quant.BlockFormat.RoundMatrix64.
func (CPU) RoundBlock64(dst, src []float64, b quant.BlockFormat, rows, cols int, axis quant.Axis) {
	b.RoundMatrix64(dst, src, rows, cols, axis)
}

// Adam is internal/vec's Adam.
func (CPU) Adam(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32) {
	vec.Adam(p, g, m, v, inv, b1, b2, lr, sc2, eps)
}

// Scale is internal/vec's Scale.
func (CPU) Scale(dst, x []float32, a float32) { vec.Scale(dst, x, a) }

// AdamMoments is internal/vec's AdamMoments.
func (CPU) AdamMoments(m, v, g []float32, b1, b2 float32) { vec.AdamMoments(m, v, g, b1, b2) }

// AdamApply is internal/vec's AdamApply.
func (CPU) AdamApply(p, m, v []float32, lr, sc2, eps float32) { vec.AdamApply(p, m, v, lr, sc2, eps) }

// LeakyReLU is internal/vec's LeakyReLU.
func (CPU) LeakyReLU(dst, x []float32, alpha float32) { vec.LeakyReLU(dst, x, alpha) }

// LeakyReLUBack is internal/vec's LeakyReLUBack.
func (CPU) LeakyReLUBack(dst, dy, x []float32, alpha float32) { vec.LeakyReLUBack(dst, dy, x, alpha) }

// Tanh is internal/vec's Tanh.
func (CPU) Tanh(dst, x []float32) { vec.Tanh(dst, x) }

// CountLimit is internal/vec's CountLimit.
func (CPU) CountLimit(x []float32, limit float32) (nonFinite, atLimit int) {
	return vec.CountLimit(x, limit)
}
