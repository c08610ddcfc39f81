package compute

import (
	"math/rand/v2"

	"github.com/positgan/positgan/quant"
)

// A Backend computes the kernels of the training step. Its methods have
// the semantics of CPU's, which document them, and must give the same
// bits where a caller relies on them (see docs/adding-a-backend.md).
// Matrices are row-major, as in gonum's blas package.
//
// A Backend is used by one graph node at a time but by several graphs
// at once (the D and G steps of a GAN, evaluation): its methods must be
// safe for concurrent use on disjoint data.
type Backend interface {
	// Name names the implementation, as `positgan version` prints it:
	// CPU's is its matrix multiply ("avx512", "avx2", "go" or "openblas").
	Name() string
	Float32
	Float64
}

// Float32 is the float32 half of a Backend: what training runs.
type Float32 interface {
	// Gemm computes c = alpha·op(a)·op(b) + beta·c, BLAS SGEMM.
	Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	// QuireGemm sets c = op(a)·op(b), each element the exact dot product
	// rounded once to f (nil: to float32). w keeps buffers between calls;
	// nil means none.
	QuireGemm(w *Workspace, f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int)
	// PerOpGemm sets c = op(a)·op(b) with every product and every partial
	// sum rounded to f (nil: to float32), in order. w keeps tables and
	// buffers between calls; nil means none.
	PerOpGemm(w *Workspace, f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int)

	// Im2col writes the column matrix of one image (rows ld apart).
	Im2col(dst []float32, ld int, src []float32, g Geom)
	// Col2im adds a column matrix back into one image, Im2col's adjoint.
	Col2im(dst, src []float32, ld int, g Geom)
	// Im2colBatch writes the column matrices of n images side by side.
	Im2colBatch(dst, src []float32, n int, g Geom)
	// Col2imBatch sets n images to Im2colBatch's adjoint of src.
	Col2imBatch(dst, src []float32, n int, g Geom)

	// Round sets dst to src rounded to the element-wise format f (not
	// nil) with mode; rng serves stochastic rounding only.
	Round(dst, src []float32, f quant.Format, mode quant.Rounding, rng *rand.PCG)
	// RoundBlock sets dst to the rows×cols matrix src rounded to the block
	// format b, blocks along axis, with mode; rng serves stochastic
	// rounding only.
	RoundBlock(dst, src []float32, b quant.BlockFormat, rows, cols int, axis quant.Axis, mode quant.Rounding, rng *rand.PCG)

	// Adam applies one fused Adam update in place (see Adam).
	Adam(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32)
	// Scale sets dst = x·a, the first of Adam's three split passes.
	Scale(dst, x []float32, a float32)
	// AdamMoments updates Adam's moments, its second split pass.
	AdamMoments(m, v, g []float32, b1, b2 float32)
	// AdamApply updates the parameters, Adam's last split pass.
	AdamApply(p, m, v []float32, lr, sc2, eps float32)
	// LeakyReLU sets dst = x where x > 0 and alpha·x elsewhere.
	LeakyReLU(dst, x []float32, alpha float32)
	// LeakyReLUBack sets dst = dy where x > 0 and alpha·dy elsewhere.
	LeakyReLUBack(dst, dy, x []float32, alpha float32)
	// Tanh sets dst = float32(math.Tanh(float64(x))).
	Tanh(dst, x []float32)
	// CountLimit counts the non-finite values of x and the finite ones of
	// magnitude at least limit.
	CountLimit(x []float32, limit float32) (nonFinite, atLimit int)
}

// Float64 is the float64 half of a Backend: what gradient checks run.
// Its roundings are always to nearest, which the checks need.
type Float64 interface {
	Gemm64(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	QuireGemm64(f quant.Format, tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
	PerOpGemm64(f quant.Format, tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
	Im2col64(dst []float64, ld int, src []float64, g Geom)
	Col2im64(dst, src []float64, ld int, g Geom)
	Im2colBatch64(dst, src []float64, n int, g Geom)
	Col2imBatch64(dst, src []float64, n int, g Geom)
	Round64(dst, src []float64, f quant.Format)
	RoundBlock64(dst, src []float64, b quant.BlockFormat, rows, cols int, axis quant.Axis)
}

// impl is the Backend every function of the package forwards to.
var impl Backend = CPU{}

// Use makes b the Backend of every later computation. Call it before any
// work starts (in main, or a test that restores the previous one with
// Use(CPU{}) or Use(Current())), not while a computation may run.
func Use(b Backend) {
	if b == nil {
		panic("compute: nil Backend")
	}
	impl = b
}

// Current returns the Backend in use.
func Current() Backend { return impl }

// Name returns the name of the Backend in use.
func Name() string { return impl.Name() }
