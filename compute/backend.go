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
	Products
	Rounding
	Elementwise
	Layers
}

// Float64 is the float64 half of a Backend: what gradient checks run.
// Each method is the Float32 method of the same name without the 64, on
// float64 data; its roundings are always to nearest, which the checks
// need.
type Float64 interface {
	Products64
	Rounding64
	Elementwise64
	Layers64
}

// Products are the matrix products of the dense and convolution layers
// and the packing of images into matrices for them.
type Products interface {
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
}

// Rounding rounds tensors to the number formats of package quant.
type Rounding interface {
	// Round sets dst to src rounded to the element-wise format f (not
	// nil) with mode; rng serves stochastic rounding only.
	Round(dst, src []float32, f quant.Format, mode quant.Rounding, rng *rand.PCG)
	// RoundBlock sets dst to the rows×cols matrix src rounded to the block
	// format b, blocks along axis, with mode; rng serves stochastic
	// rounding only.
	RoundBlock(dst, src []float32, b quant.BlockFormat, rows, cols int, axis quant.Axis, mode quant.Rounding, rng *rand.PCG)
}

// Elementwise are the kernels that compute each element of their result
// from the elements at the same index: the optimizer's, the activations'
// and the loss scaler's.
type Elementwise interface {
	// Adam applies one fused Adam update in place (see Adam).
	Adam(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32)
	// Scale sets dst = x·a, the first of Adam's three split passes.
	Scale(dst, x []float32, a float32)
	// AdamMoments updates Adam's moments, its second split pass.
	AdamMoments(m, v, g []float32, b1, b2 float32)
	// AdamApply updates the parameters, Adam's last split pass.
	AdamApply(p, m, v []float32, lr, sc2, eps float32)
	// Add sets dst = a + b.
	Add(dst, a, b []float32)
	// LeakyReLU sets dst = x where x > 0 and alpha·x elsewhere.
	LeakyReLU(dst, x []float32, alpha float32)
	// LeakyReLUBack sets dst = dy where x > 0 and alpha·dy elsewhere.
	LeakyReLUBack(dst, dy, x []float32, alpha float32)
	// Tanh sets dst = float32(math.Tanh(float64(x))).
	Tanh(dst, x []float32)
	// TanhBack sets dst = dy·(1 - y·y), y = tanh(x).
	TanhBack(dst, dy, y []float32)
	// Sigmoid sets dst = 1/(1+exp(-x)), computed in float64.
	Sigmoid(dst, x []float32)
	// SigmoidBack sets dst = dy·(1-y)·y, y = sigmoid(x).
	SigmoidBack(dst, dy, y []float32)
	// CountLimit counts the non-finite values of x and the finite ones of
	// magnitude at least limit.
	CountLimit(x []float32, limit float32) (nonFinite, atLimit int)
}

// Layers are the kernels of the layers that are neither products nor
// element-wise: normalisation, pooling, padding and rearrangements.
type Layers interface {
	// NormForward normalises x into y by the statistics of each group
	// of g, keeping the mean and 1/σ for the backward pass (see
	// NormForward).
	NormForward(w *Workspace, y, x, gamma, beta, mean, variance []float32, mu, invstd []float64, g Norm)
	// NormSums sets sumDy and sumDyHat to Σdy and Σdy·x̂ per channel.
	NormSums(w *Workspace, sumDy, sumDyHat []float64, dy, x []float32, mu, invstd []float64, g Norm)
	// NormBackX sets dx to the gradient of NormForward's input.
	NormBackX(w *Workspace, dx, dy, gamma, x []float32, mu, invstd, sumDy, sumDyHat []float64, g Norm)

	// AvgPool sets dst to the means of the windows of src (no padding).
	AvgPool(dst, src []float32, g Pool)
	// AvgPoolBack sets dst to AvgPool's gradient.
	AvgPoolBack(dst, dy []float32, g Pool)
	// AvgPoolPad sets dst to the means of the image pixels of the
	// padded windows of src.
	AvgPoolPad(dst, src []float32, g Pool)
	// AvgPoolPadBack sets dst to AvgPoolPad's gradient.
	AvgPoolPadBack(dst, dy []float32, g Pool)
	// MaxPool sets dst to the window maxima of src and arg to where
	// they are.
	MaxPool(dst []float32, arg []int32, src []float32, g Pool)
	// MaxPoolBack sets dst to MaxPool's gradient.
	MaxPoolBack(dst, dy []float32, arg []int32, g Pool)
	// Upsample repeats each pixel of src into a block.
	Upsample(dst, src []float32, g Upscale)
	// UpsampleBack sets dst to Upsample's gradient.
	UpsampleBack(dst, dy []float32, g Upscale)
	// PlaneMean sets dst to the mean of each plane of src.
	PlaneMean(dst, src []float32, n, hw int)
	// PlaneMeanBack sets dst to PlaneMean's gradient.
	PlaneMeanBack(dst, dy []float32, n, hw int)

	// ReflectPad pads src with its reflection.
	ReflectPad(dst, src []float32, g Reflect)
	// ReflectPadBack sets dst to ReflectPad's gradient.
	ReflectPadBack(dst, dy []float32, g Reflect)
	// PixelShuffle rearranges channels of src into pixels.
	PixelShuffle(dst, src []float32, g Shuffle)
	// PixelShuffleBack sets dst to PixelShuffle's gradient.
	PixelShuffleBack(dst, dy []float32, g Shuffle)
	// ConcatRows joins the rows of a and b.
	ConcatRows(dst, a, b []float32, rows, n, m int)
	// SliceRows copies a range of columns of every row.
	SliceRows(dst, src []float32, rows, cols, off, w int)

	// AddBias adds a bias per channel.
	AddBias(dst, bias []float32, n, inner int)
	// SumBias sums a gradient per channel in float64: AddBias's gradient.
	SumBias(dst, src []float32, n, inner int)
	// MatrixToImages turns a convolution's product into images, plus a
	// bias per channel.
	MatrixToImages(dst, src, bias []float32, n, c, p int)
	// ImagesToMatrix lays images out as MatrixToImages reads them.
	ImagesToMatrix(dst, src []float32, n, c, p int)
}

// Products64 are the float64 Products.
type Products64 interface {
	Gemm64(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	QuireGemm64(f quant.Format, tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
	PerOpGemm64(f quant.Format, tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
	Im2col64(dst []float64, ld int, src []float64, g Geom)
	Col2im64(dst, src []float64, ld int, g Geom)
	Im2colBatch64(dst, src []float64, n int, g Geom)
	Col2imBatch64(dst, src []float64, n int, g Geom)
}

// Rounding64 is the float64 Rounding, to nearest.
type Rounding64 interface {
	Round64(dst, src []float64, f quant.Format)
	RoundBlock64(dst, src []float64, b quant.BlockFormat, rows, cols int, axis quant.Axis)
}

// Elementwise64 are the float64 Elementwise kernels that gradient checks
// run (not the optimizer's or the loss scaler's).
type Elementwise64 interface {
	Scale64(dst, x []float64, a float64)
	Add64(dst, a, b []float64)
	LeakyReLU64(dst, x []float64, alpha float64)
	LeakyReLUBack64(dst, dy, x []float64, alpha float64)
	Tanh64(dst, x []float64)
	TanhBack64(dst, dy, y []float64)
	Sigmoid64(dst, x []float64)
	SigmoidBack64(dst, dy, y []float64)
}

// Layers64 are the float64 Layers.
type Layers64 interface {
	NormForward64(w *Workspace, y, x, gamma, beta, mean, variance []float64, mu, invstd []float64, g Norm)
	NormSums64(w *Workspace, sumDy, sumDyHat []float64, dy, x []float64, mu, invstd []float64, g Norm)
	NormBackX64(w *Workspace, dx, dy, gamma, x []float64, mu, invstd, sumDy, sumDyHat []float64, g Norm)
	AvgPool64(dst, src []float64, g Pool)
	AvgPoolBack64(dst, dy []float64, g Pool)
	AvgPoolPad64(dst, src []float64, g Pool)
	AvgPoolPadBack64(dst, dy []float64, g Pool)
	MaxPool64(dst []float64, arg []int32, src []float64, g Pool)
	MaxPoolBack64(dst, dy []float64, arg []int32, g Pool)
	Upsample64(dst, src []float64, g Upscale)
	UpsampleBack64(dst, dy []float64, g Upscale)
	PlaneMean64(dst, src []float64, n, hw int)
	PlaneMeanBack64(dst, dy []float64, n, hw int)
	ReflectPad64(dst, src []float64, g Reflect)
	ReflectPadBack64(dst, dy []float64, g Reflect)
	PixelShuffle64(dst, src []float64, g Shuffle)
	PixelShuffleBack64(dst, dy []float64, g Shuffle)
	ConcatRows64(dst, a, b []float64, rows, n, m int)
	SliceRows64(dst, src []float64, rows, cols, off, w int)
	AddBias64(dst, bias []float64, n, inner int)
	SumBias64(dst, src []float64, n, inner int)
	MatrixToImages64(dst, src, bias []float64, n, c, p int)
	ImagesToMatrix64(dst, src []float64, n, c, p int)
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
