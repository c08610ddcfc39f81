package nn

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// The kernels of the fused layers, for packages that build graph ops of
// their own: nn/qgraph's Rewrite computes a rewritten layer with them, so
// that it gives the bits of the layer built here, and the arithmetic
// (operand layouts, block rounding, summation order) is written once.
//
// A kernel keeps what its forward call computed for the backward calls
// that follow, as a layer's op does: one forward, then any of the
// backward calls for it, then the next forward. The backward calls of one
// forward must be given the same dy, which the kernel rounds to Err once.

// LinearKernel computes what Linear's op computes, on tensors the caller
// holds.
type LinearKernel struct {
	st *linState
}

// NewLinearKernel returns the kernel of a Linear layer from in to out
// features with formats f, for batches of batch rows. The options that
// apply are WithSeed (for stochastic rounding).
func NewLinearKernel(batch, in, out int, f LayerFormats, opts ...Option) (*LinearKernel, error) {
	if batch <= 0 || in <= 0 || out <= 0 {
		return nil, fmt.Errorf("nn: linear kernel: sizes %d×%d→%d must be positive", batch, in, out)
	}
	if err := f.checkDot(); err != nil {
		return nil, fmt.Errorf("nn: linear kernel: %w", err)
	}
	l := &Linear{In: in, Out: out, roles: newRoles(f, buildOptions(opts).seed)}
	return &LinearKernel{st: &linState{l: l, batch: batch, xShape: tensor.Shape{batch, in}}}, nil
}

// Forward sets y (batch×out) to Out(Act(x)·Weight(w)ᵀ + b) for x
// (batch×in), w (out×in) and b (out values, or nil for no bias), all of
// one element type. Without a weight format the backward calls read w
// itself: it must not change until they are done.
func (k *LinearKernel) Forward(y, x, w, b *tensor.Dense) {
	st := k.st
	checkSize("linear kernel", "x", x, st.batch*st.l.In)
	checkSize("linear kernel", "w", w, st.l.Out*st.l.In)
	checkSize("linear kernel", "y", y, st.batch*st.l.Out)
	if b != nil {
		checkSize("linear kernel", "b", b, st.l.Out)
	}
	if isF64(x) {
		linForward(st, &st.b64, x, w, b, y)
	} else {
		linForward(st, &st.b32, x, w, b, y)
	}
}

// BackX sets dx (batch×in) to the gradient of the input of the last
// Forward, given dy (batch×out), the gradient of its output.
func (k *LinearKernel) BackX(dx, dy *tensor.Dense) {
	st := k.st
	checkSize("linear kernel", "dy", dy, st.batch*st.l.Out)
	checkSize("linear kernel", "dx", dx, st.batch*st.l.In)
	if isF64(dy) {
		linBackX(st, &st.b64, dy, dx)
	} else {
		linBackX(st, &st.b32, dy, dx)
	}
}

// BackW sets dw (out×in) to the gradient of the weights of the last
// Forward, given dy (batch×out), the gradient of its output.
func (k *LinearKernel) BackW(dw, dy *tensor.Dense) {
	st := k.st
	checkSize("linear kernel", "dy", dy, st.batch*st.l.Out)
	checkSize("linear kernel", "dw", dw, st.l.Out*st.l.In)
	if isF64(dy) {
		linBackW(st, &st.b64, dy, dw)
	} else {
		linBackW(st, &st.b32, dy, dw)
	}
}

// Conv2dKernel computes what Conv2d's op computes, on tensors the caller
// holds.
//
// A matrix product Wt·Xt with Xt a (C, P) matrix of P columns, as after
// an im2col, is the 1×1 convolution of Xt seen as a (1, C, 1, P) image:
// NewConv2dKernel(1, C, 1, P, outC, 1, 1, 0, f) computes it, and its
// gradients, as Conv2d's op sums them.
type Conv2dKernel struct {
	st *convState
}

// NewConv2dKernel returns the kernel of a Conv2d layer from inC to outC
// channels, with a k×k kernel, stride and padding, and formats f, for
// batches of batch images h×w. The options that apply are WithSeed (for
// stochastic rounding).
func NewConv2dKernel(batch, inC, h, w, outC, k, stride, pad int, f LayerFormats, opts ...Option) (*Conv2dKernel, error) {
	if batch <= 0 || outC <= 0 {
		return nil, fmt.Errorf("nn: conv2d kernel: batch %d and %d output channels must be positive", batch, outC)
	}
	if err := f.checkDot(); err != nil {
		return nil, fmt.Errorf("nn: conv2d kernel: %w", err)
	}
	g, err := compute.ConvGeom(inC, h, w, k, k, stride, pad)
	if err != nil {
		return nil, fmt.Errorf("nn: conv2d kernel: %w", err)
	}
	st := &convState{roles: newRoles(f, buildOptions(opts).seed), g: g, batch: batch, inC: inC, outC: outC,
		xShape: tensor.Shape{batch, inC, h, w}, yShape: tensor.Shape{batch, outC, g.OH, g.OW}}
	return &Conv2dKernel{st: st}, nil
}

// OutShape returns the shape of the output, (batch, outC, OH, OW).
func (k *Conv2dKernel) OutShape() tensor.Shape { return k.st.yShape.Clone() }

// Forward sets y (batch, outC, OH, OW) to the convolution of x (batch,
// inC, h, w) by w (outC, inC, k, k) plus b (outC values, or nil), all of
// one element type.
func (k *Conv2dKernel) Forward(y, x, w, b *tensor.Dense) {
	st := k.st
	checkSize("conv2d kernel", "x", x, st.xShape.TotalSize())
	checkSize("conv2d kernel", "w", w, st.outC*st.g.Rows())
	checkSize("conv2d kernel", "y", y, st.yShape.TotalSize())
	if b != nil {
		checkSize("conv2d kernel", "b", b, st.outC)
	}
	if isF64(x) {
		convForward(st, &st.b64, x, w, b, y)
	} else {
		convForward(st, &st.b32, x, w, b, y)
	}
}

// BackX sets dx to the gradient of the input of the last Forward, given
// dy, the gradient of its output.
func (k *Conv2dKernel) BackX(dx, dy *tensor.Dense) {
	st := k.st
	checkSize("conv2d kernel", "dy", dy, st.yShape.TotalSize())
	checkSize("conv2d kernel", "dx", dx, st.xShape.TotalSize())
	st.backX(dy, dx)
}

// BackW sets dw to the gradient of the weights of the last Forward, given
// dy, the gradient of its output.
func (k *Conv2dKernel) BackW(dw, dy *tensor.Dense) {
	st := k.st
	checkSize("conv2d kernel", "dy", dy, st.yShape.TotalSize())
	checkSize("conv2d kernel", "dw", dw, st.outC*st.g.Rows())
	st.backW(dy, dw)
}

// SumBias sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p]: the gradient of a bias added along axis 1
// of an (n, len(dst), inner) tensor, summed in float64 in the order the
// layers sum their bias gradients.
func SumBias[T compute.Float](dst, src []T, n, inner int) {
	if len(src) != n*len(dst)*inner {
		panic(fmt.Sprintf("nn: SumBias: %d values, want %d·%d·%d", len(src), n, len(dst), inner))
	}
	compute.SumBias(dst, src, n, inner)
}

// checkSize panics if t does not hold n values.
func checkSize(what, name string, t *tensor.Dense, n int) {
	if t.Size() != n {
		panic(fmt.Sprintf("nn: %s: %s has %d values, want %d", what, name, t.Size(), n))
	}
}
