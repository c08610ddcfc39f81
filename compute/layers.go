package compute

// Pool is the geometry of pooling N planes of H×W with a K×K window moved
// with stride S over the plane padded by Pad pixels on each side, into
// OH×OW outputs.
type Pool struct{ N, H, W, K, S, Pad, OH, OW int }

// Upscale is the geometry of nearest-neighbour upsampling of N planes of
// H×W by S, into planes of H·S×W·S.
type Upscale struct{ N, H, W, S int }

// Reflect is the geometry of a reflection pad of N planes of H×W into
// OH×OW: output row i (column j) copies input row Rows[i] (column
// Cols[j]).
type Reflect struct {
	N, H, W, OH, OW int
	Rows, Cols      []int
}

// NewReflect returns the geometry of padding n planes of h×w by pad pixels
// on each side with their reflection about the edge pixels, which are not
// repeated (pad < h and pad < w): a row 1 2 3 4 padded by 2 is
// 3 2 1 2 3 4 3 2.
func NewReflect(n, h, w, pad int) Reflect {
	return Reflect{N: n, H: h, W: w, OH: h + 2*pad, OW: w + 2*pad,
		Rows: reflectIndex(h, pad), Cols: reflectIndex(w, pad)}
}

// reflectIndex returns, for each of the n+2·pad padded positions, the
// input position it copies (pad < n).
func reflectIndex(n, pad int) []int {
	idx := make([]int, n+2*pad)
	for i := range idx {
		j := i - pad
		if j < 0 {
			j = -j
		} else if j >= n {
			j = 2*(n-1) - j
		}
		idx[i] = j
	}
	return idx
}

// Shuffle is the geometry of a pixel shuffle: N output planes of H·R×W·R,
// each made of R² input planes of H×W.
type Shuffle struct{ N, H, W, R int }

// AvgPool sets dst to the mean of each window of src, the window's sum
// times 1/K², without padding (g.Pad is 0).
func AvgPool[T Float](dst, src []T, g Pool) {
	switch d := any(dst).(type) {
	case []float32:
		impl.AvgPool(d, any(src).([]float32), g)
	case []float64:
		impl.AvgPool64(d, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// AvgPoolBack sets dst to the gradient of AvgPool's input given dy: each
// output's gradient times 1/K² added to every pixel of its window.
func AvgPoolBack[T Float](dst, dy []T, g Pool) {
	switch d := any(dst).(type) {
	case []float32:
		impl.AvgPoolBack(d, any(dy).([]float32), g)
	case []float64:
		impl.AvgPoolBack64(d, any(dy).([]float64), g)
	default:
		panic(errType)
	}
}

// AvgPoolPad sets dst to the sum of the pixels of each padded window of
// src that lie inside the plane, divided by their number (PyTorch's
// avg_pool2d with count_include_pad=False).
func AvgPoolPad[T Float](dst, src []T, g Pool) {
	switch d := any(dst).(type) {
	case []float32:
		impl.AvgPoolPad(d, any(src).([]float32), g)
	case []float64:
		impl.AvgPoolPad64(d, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// AvgPoolPadBack sets dst to the gradient of AvgPoolPad's input given dy.
func AvgPoolPadBack[T Float](dst, dy []T, g Pool) {
	switch d := any(dst).(type) {
	case []float32:
		impl.AvgPoolPadBack(d, any(dy).([]float32), g)
	case []float64:
		impl.AvgPoolPadBack64(d, any(dy).([]float64), g)
	default:
		panic(errType)
	}
}

// MaxPool sets dst to the maximum of each padded window of src, the
// padding never winning, and arg to the index in its plane of each
// maximum: the first in row-major order on ties, the last NaN if there is
// one (PyTorch's rule).
func MaxPool[T Float](dst []T, arg []int32, src []T, g Pool) {
	switch d := any(dst).(type) {
	case []float32:
		impl.MaxPool(d, arg, any(src).([]float32), g)
	case []float64:
		impl.MaxPool64(d, arg, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// MaxPoolBack sets dst to the gradient of MaxPool's input given dy and the
// arg MaxPool set: each output's gradient goes to its maximum.
func MaxPoolBack[T Float](dst, dy []T, arg []int32, g Pool) {
	switch d := any(dst).(type) {
	case []float32:
		impl.MaxPoolBack(d, any(dy).([]float32), arg, g)
	case []float64:
		impl.MaxPoolBack64(d, any(dy).([]float64), arg, g)
	default:
		panic(errType)
	}
}

// Upsample repeats each pixel of src into an S×S block of dst.
func Upsample[T Float](dst, src []T, g Upscale) {
	switch d := any(dst).(type) {
	case []float32:
		impl.Upsample(d, any(src).([]float32), g)
	case []float64:
		impl.Upsample64(d, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// UpsampleBack sets each pixel of dst to the sum of the gradients dy of
// its block, row by row.
func UpsampleBack[T Float](dst, dy []T, g Upscale) {
	switch d := any(dst).(type) {
	case []float32:
		impl.UpsampleBack(d, any(dy).([]float32), g)
	case []float64:
		impl.UpsampleBack64(d, any(dy).([]float64), g)
	default:
		panic(errType)
	}
}

// ReflectPad sets dst to src padded with its reflection (see NewReflect).
func ReflectPad[T Float](dst, src []T, g Reflect) {
	switch d := any(dst).(type) {
	case []float32:
		impl.ReflectPad(d, any(src).([]float32), g)
	case []float64:
		impl.ReflectPad64(d, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// ReflectPadBack sets dst to the gradient of ReflectPad's input given dy:
// the gradient of every padded pixel added to the pixel it copies.
func ReflectPadBack[T Float](dst, dy []T, g Reflect) {
	switch d := any(dst).(type) {
	case []float32:
		impl.ReflectPadBack(d, any(dy).([]float32), g)
	case []float64:
		impl.ReflectPadBack64(d, any(dy).([]float64), g)
	default:
		panic(errType)
	}
}

// PixelShuffle rearranges src (N·R² planes of H×W) into dst (N planes of
// H·R×W·R): output pixel (c, h·R+i, w·R+j) is input pixel (c·R²+i·R+j, h,
// w), as PyTorch's nn.PixelShuffle(R).
func PixelShuffle[T Float](dst, src []T, g Shuffle) {
	switch d := any(dst).(type) {
	case []float32:
		impl.PixelShuffle(d, any(src).([]float32), g)
	case []float64:
		impl.PixelShuffle64(d, any(src).([]float64), g)
	default:
		panic(errType)
	}
}

// PixelShuffleBack sets dst to the gradient of PixelShuffle's input given
// dy: the inverse rearrangement.
func PixelShuffleBack[T Float](dst, dy []T, g Shuffle) {
	switch d := any(dst).(type) {
	case []float32:
		impl.PixelShuffleBack(d, any(dy).([]float32), g)
	case []float64:
		impl.PixelShuffleBack64(d, any(dy).([]float64), g)
	default:
		panic(errType)
	}
}

// ConcatRows sets row r of dst (n+m values) to row r of a (n values)
// followed by row r of b (m values), for each of rows rows.
func ConcatRows[T Float](dst, a, b []T, rows, n, m int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.ConcatRows(d, any(a).([]float32), any(b).([]float32), rows, n, m)
	case []float64:
		impl.ConcatRows64(d, any(a).([]float64), any(b).([]float64), rows, n, m)
	default:
		panic(errType)
	}
}

// SliceRows sets row r of dst (w values) to values off to off+w of row r
// of src (cols values), for each of rows rows: ConcatRows's gradient.
func SliceRows[T Float](dst, src []T, rows, cols, off, w int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.SliceRows(d, any(src).([]float32), rows, cols, off, w)
	case []float64:
		impl.SliceRows64(d, any(src).([]float64), rows, cols, off, w)
	default:
		panic(errType)
	}
}

// AddBias adds bias[c] to every value of channel c of dst, an (n,
// len(bias), inner) tensor: the bias of a dense layer (inner 1) or a
// convolution (inner the positions of a plane).
func AddBias[T Float](dst, bias []T, n, inner int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.AddBias(d, any(bias).([]float32), n, inner)
	case []float64:
		impl.AddBias64(d, any(bias).([]float64), n, inner)
	default:
		panic(errType)
	}
}

// SumBias sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p]: the gradient of a bias added by AddBias,
// summed in float64 in that order and rounded once.
func SumBias[T Float](dst, src []T, n, inner int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.SumBias(d, any(src).([]float32), n, inner)
	case []float64:
		impl.SumBias64(d, any(src).([]float64), n, inner)
	default:
		panic(errType)
	}
}

// MatrixToImages sets the n images of dst (n×c×p) from the c × n·p matrix
// src, whose columns hold the images side by side, plus bias[ch] on
// channel ch (bias nil: none): dst[b][ch][i] = src[ch][b·p+i] + bias[ch].
// It turns a convolution's product into its output.
func MatrixToImages[T Float](dst, src, bias []T, n, c, p int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.MatrixToImages(d, any(src).([]float32), any(bias).([]float32), n, c, p)
	case []float64:
		impl.MatrixToImages64(d, any(src).([]float64), any(bias).([]float64), n, c, p)
	default:
		panic(errType)
	}
}

// ImagesToMatrix is the inverse of MatrixToImages without a bias:
// dst[ch][b·p+i] = src[b][ch][i].
func ImagesToMatrix[T Float](dst, src []T, n, c, p int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.ImagesToMatrix(d, any(src).([]float32), n, c, p)
	case []float64:
		impl.ImagesToMatrix64(d, any(src).([]float64), n, c, p)
	default:
		panic(errType)
	}
}

// PlaneMean sets dst[p] to the mean of plane p of src (n planes of hw
// values): the sum in float64, in order, divided by hw and rounded once.
func PlaneMean[T Float](dst, src []T, n, hw int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.PlaneMean(d, any(src).([]float32), n, hw)
	case []float64:
		impl.PlaneMean64(d, any(src).([]float64), n, hw)
	default:
		panic(errType)
	}
}

// PlaneMeanBack sets every value of plane p of dst to dy[p]·(1/hw):
// PlaneMean's gradient.
func PlaneMeanBack[T Float](dst, dy []T, n, hw int) {
	switch d := any(dst).(type) {
	case []float32:
		impl.PlaneMeanBack(d, any(dy).([]float32), n, hw)
	case []float64:
		impl.PlaneMeanBack64(d, any(dy).([]float64), n, hw)
	default:
		panic(errType)
	}
}
