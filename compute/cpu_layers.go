package compute

// The CPU's element-wise kernels that internal/vec does not provide, and
// its layer kernels: Go loops in this package (*_kernel.go), generic over
// the element type.

// Scale64 is Scale on float64 data.
func (CPU) Scale64(dst, x []float64, a float64) { scaleTo(dst[:len(x)], x, a) }

// Add sets dst = a + b over a's elements.
func (CPU) Add(dst, a, b []float32) { sumTo(dst, a, b) }

// Add64 is Add on float64 data.
func (CPU) Add64(dst, a, b []float64) { sumTo(dst, a, b) }

// LeakyReLU64 is LeakyReLU on float64 data, a Go loop.
func (CPU) LeakyReLU64(dst, x []float64, alpha float64) { leaky(dst, x, alpha) }

// LeakyReLUBack64 is LeakyReLUBack on float64 data, a Go loop.
func (CPU) LeakyReLUBack64(dst, dy, x []float64, alpha float64) { leakyBack(dst, dy, x, alpha) }

// Tanh64 is math.Tanh of each element.
func (CPU) Tanh64(dst, x []float64) { tanh(dst, x) }

// TanhBack sets dst = dy·(1 - y·y) over dy's elements.
func (CPU) TanhBack(dst, dy, y []float32) { tanhBack(dst, dy, y) }

// TanhBack64 is TanhBack on float64 data.
func (CPU) TanhBack64(dst, dy, y []float64) { tanhBack(dst, dy, y) }

// Sigmoid computes each element in float64 and rounds it once.
func (CPU) Sigmoid(dst, x []float32) { sigmoidTo(dst, x) }

// Sigmoid64 is Sigmoid on float64 data.
func (CPU) Sigmoid64(dst, x []float64) { sigmoidTo(dst, x) }

// SigmoidBack sets dst = dy·(1-y)·y over dy's elements.
func (CPU) SigmoidBack(dst, dy, y []float32) { sigmoidBack(dst, dy, y) }

// SigmoidBack64 is SigmoidBack on float64 data.
func (CPU) SigmoidBack64(dst, dy, y []float64) { sigmoidBack(dst, dy, y) }

// NormForward splits the channels, four at a time, over the cores; the
// sums of four channels run side by side, each in its own order.
func (CPU) NormForward(w *Workspace, y, x, gamma, beta, mean, variance []float32, mu, invstd []float64, g Norm) {
	normForward(w, y, x, gamma, beta, mean, variance, mu, invstd, g)
}

// NormForward64 is NormForward on float64 data.
func (CPU) NormForward64(w *Workspace, y, x, gamma, beta, mean, variance []float64, mu, invstd []float64, g Norm) {
	normForward(w, y, x, gamma, beta, mean, variance, mu, invstd, g)
}

// NormSums splits the channels over the cores as NormForward does.
func (CPU) NormSums(w *Workspace, sumDy, sumDyHat []float64, dy, x []float32, mu, invstd []float64, g Norm) {
	normSums(w, sumDy, sumDyHat, dy, x, mu, invstd, g)
}

// NormSums64 is NormSums on float64 data.
func (CPU) NormSums64(w *Workspace, sumDy, sumDyHat []float64, dy, x []float64, mu, invstd []float64, g Norm) {
	normSums(w, sumDy, sumDyHat, dy, x, mu, invstd, g)
}

// NormBackX splits the channels over the cores as NormForward does.
func (CPU) NormBackX(w *Workspace, dx, dy, gamma, x []float32, mu, invstd, sumDy, sumDyHat []float64, g Norm) {
	normBackX(w, dx, dy, gamma, x, mu, invstd, sumDy, sumDyHat, g)
}

// NormBackX64 is NormBackX on float64 data.
func (CPU) NormBackX64(w *Workspace, dx, dy, gamma, x []float64, mu, invstd, sumDy, sumDyHat []float64, g Norm) {
	normBackX(w, dx, dy, gamma, x, mu, invstd, sumDy, sumDyHat, g)
}

// AvgPool sums each window in row-major order, then scales.
func (CPU) AvgPool(dst, src []float32, g Pool) { avgPool(g, dst, src) }

// AvgPool64 is AvgPool on float64 data.
func (CPU) AvgPool64(dst, src []float64, g Pool) { avgPool(g, dst, src) }

// AvgPoolBack adds the scaled gradients window by window.
func (CPU) AvgPoolBack(dst, dy []float32, g Pool) { avgPoolBack(g, dst, dy) }

// AvgPoolBack64 is AvgPoolBack on float64 data.
func (CPU) AvgPoolBack64(dst, dy []float64, g Pool) { avgPoolBack(g, dst, dy) }

// AvgPoolPad sums each window in row-major order, then divides.
func (CPU) AvgPoolPad(dst, src []float32, g Pool) { avgPoolPad(g, dst, src) }

// AvgPoolPad64 is AvgPoolPad on float64 data.
func (CPU) AvgPoolPad64(dst, src []float64, g Pool) { avgPoolPad(g, dst, src) }

// AvgPoolPadBack adds the divided gradients window by window.
func (CPU) AvgPoolPadBack(dst, dy []float32, g Pool) { avgPoolPadBack(g, dst, dy) }

// AvgPoolPadBack64 is AvgPoolPadBack on float64 data.
func (CPU) AvgPoolPadBack64(dst, dy []float64, g Pool) { avgPoolPadBack(g, dst, dy) }

// MaxPool scans each window in row-major order.
func (CPU) MaxPool(dst []float32, arg []int32, src []float32, g Pool) { maxPool(g, dst, arg, src) }

// MaxPool64 is MaxPool on float64 data.
func (CPU) MaxPool64(dst []float64, arg []int32, src []float64, g Pool) { maxPool(g, dst, arg, src) }

// MaxPoolBack adds the gradients in output order.
func (CPU) MaxPoolBack(dst, dy []float32, arg []int32, g Pool) { maxPoolBack(g, dst, dy, arg) }

// MaxPoolBack64 is MaxPoolBack on float64 data.
func (CPU) MaxPoolBack64(dst, dy []float64, arg []int32, g Pool) { maxPoolBack(g, dst, dy, arg) }

// Upsample copies a row at a time.
func (CPU) Upsample(dst, src []float32, g Upscale) { upsample(dst, src, g) }

// Upsample64 is Upsample on float64 data.
func (CPU) Upsample64(dst, src []float64, g Upscale) { upsample(dst, src, g) }

// UpsampleBack sums each block row by row.
func (CPU) UpsampleBack(dst, dy []float32, g Upscale) { upsampleBack(dst, dy, g) }

// UpsampleBack64 is UpsampleBack on float64 data.
func (CPU) UpsampleBack64(dst, dy []float64, g Upscale) { upsampleBack(dst, dy, g) }

// ReflectPad copies through g's index tables.
func (CPU) ReflectPad(dst, src []float32, g Reflect) { reflectPad(g, dst, src) }

// ReflectPad64 is ReflectPad on float64 data.
func (CPU) ReflectPad64(dst, src []float64, g Reflect) { reflectPad(g, dst, src) }

// ReflectPadBack adds the gradients in output order.
func (CPU) ReflectPadBack(dst, dy []float32, g Reflect) { reflectPadBack(g, dst, dy) }

// ReflectPadBack64 is ReflectPadBack on float64 data.
func (CPU) ReflectPadBack64(dst, dy []float64, g Reflect) { reflectPadBack(g, dst, dy) }

// PixelShuffle copies a row of an input plane at a time.
func (CPU) PixelShuffle(dst, src []float32, g Shuffle) { shuffle(g, dst, src, false) }

// PixelShuffle64 is PixelShuffle on float64 data.
func (CPU) PixelShuffle64(dst, src []float64, g Shuffle) { shuffle(g, dst, src, false) }

// PixelShuffleBack copies a row of an input plane at a time.
func (CPU) PixelShuffleBack(dst, dy []float32, g Shuffle) { shuffle(g, dy, dst, true) }

// PixelShuffleBack64 is PixelShuffleBack on float64 data.
func (CPU) PixelShuffleBack64(dst, dy []float64, g Shuffle) { shuffle(g, dy, dst, true) }

// ConcatRows copies a row at a time.
func (CPU) ConcatRows(dst, a, b []float32, rows, n, m int) { concatRows(dst, a, b, rows, n, m) }

// ConcatRows64 is ConcatRows on float64 data.
func (CPU) ConcatRows64(dst, a, b []float64, rows, n, m int) { concatRows(dst, a, b, rows, n, m) }

// SliceRows copies a row at a time.
func (CPU) SliceRows(dst, src []float32, rows, cols, off, w int) {
	sliceRows(dst, src, rows, cols, off, w)
}

// SliceRows64 is SliceRows on float64 data.
func (CPU) SliceRows64(dst, src []float64, rows, cols, off, w int) {
	sliceRows(dst, src, rows, cols, off, w)
}

// AddBias adds channel by channel.
func (CPU) AddBias(dst, bias []float32, n, inner int) { addBias(dst, bias, n, inner) }

// AddBias64 is AddBias on float64 data.
func (CPU) AddBias64(dst, bias []float64, n, inner int) { addBias(dst, bias, n, inner) }

// SumBias sums channel by channel.
func (CPU) SumBias(dst, src []float32, n, inner int) { sumBias(dst, src, n, inner) }

// SumBias64 is SumBias on float64 data.
func (CPU) SumBias64(dst, src []float64, n, inner int) { sumBias(dst, src, n, inner) }

// MatrixToImages splits the images over the cores.
func (CPU) MatrixToImages(dst, src, bias []float32, n, c, p int) { scatter(dst, src, n, c, p, bias) }

// MatrixToImages64 is MatrixToImages on float64 data.
func (CPU) MatrixToImages64(dst, src, bias []float64, n, c, p int) { scatter(dst, src, n, c, p, bias) }

// ImagesToMatrix splits the images over the cores.
func (CPU) ImagesToMatrix(dst, src []float32, n, c, p int) { gather(dst, src, n, c, p) }

// ImagesToMatrix64 is ImagesToMatrix on float64 data.
func (CPU) ImagesToMatrix64(dst, src []float64, n, c, p int) { gather(dst, src, n, c, p) }

// PlaneMean sums a plane at a time.
func (CPU) PlaneMean(dst, src []float32, n, hw int) { planeMean(dst, src, n, hw) }

// PlaneMean64 is PlaneMean on float64 data.
func (CPU) PlaneMean64(dst, src []float64, n, hw int) { planeMean(dst, src, n, hw) }

// PlaneMeanBack fills a plane at a time.
func (CPU) PlaneMeanBack(dst, dy []float32, n, hw int) { planeMeanBack(dst, dy, n, hw) }

// PlaneMeanBack64 is PlaneMeanBack on float64 data.
func (CPU) PlaneMeanBack64(dst, dy []float64, n, hw int) { planeMeanBack(dst, dy, n, hw) }
