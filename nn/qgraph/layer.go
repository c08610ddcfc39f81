package qgraph

import (
	"fmt"
	"hash/fnv"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Operand is the role of a dot product's operand.
type Operand uint8

const (
	// Act is an activation: rounded to the layer's Act format forward, its
	// gradient (the error passed back) to Err.
	Act Operand = iota
	// Weight is a learnable parameter: rounded to Weight forward, its
	// gradient (the weight gradient) to WGrad.
	Weight
)

// Dot applies the bilinear function f (gorgonia.Mul, gorgonia.BatchedMatMul,
// a convolution, ...) to a and b with the quantization p asks for in layer:
// each operand is rounded according to its role, the result to Out, and
// in the backward pass the error arriving at the result to Err (it is an
// operand of both backward dot products), the error passed back to an
// activation operand to Err and the gradient of a weight operand to WGrad.
//
// f sums in the graph's dtype, so Dot supports fp32 accumulation only and
// returns an error for quire and per-op; Mul and Conv2d support all three.
func Dot(p nn.Policy, layer string, f func(a, b *gorgonia.Node) (*gorgonia.Node, error),
	a, b *gorgonia.Node, ra, rb Operand, opts ...Option) (*gorgonia.Node, error) {
	if acc := nn.FormatsOf(p, layer).Accum; acc != quant.AccumFP32 {
		return nil, fmt.Errorf("qgraph: layer %s: %v accumulation is not available for this op (only Mul of matrices and Conv2d); use fp32 or the fused layers of nn", layer, acc)
	}
	return dot(p, layer, func(a, b *gorgonia.Node, _ accumSpec) (*gorgonia.Node, error) {
		return f(a, b)
	}, a, b, ra, rb, opts...)
}

// dot is Dot for a product function that knows about accumulation.
func dot(p nn.Policy, layer string, f func(a, b *gorgonia.Node, s accumSpec) (*gorgonia.Node, error),
	a, b *gorgonia.Node, ra, rb Operand, opts ...Option) (*gorgonia.Node, error) {
	lf := nn.FormatsOf(p, layer)
	if hasBlocks(lf) {
		return nil, fmt.Errorf("qgraph: layer %s: block formats are applied by Rewrite (to a graph built with gorgonia.Mul and gorgonia.Conv2d) and by the fused layers of nn, not by the layer wrappers", layer)
	}
	c := newConfig(opts)
	aq, err := operand(&c, lf, layer, "a", a, ra)
	if err != nil {
		return nil, err
	}
	bq, err := operand(&c, lf, layer, "b", b, rb)
	if err != nil {
		return nil, err
	}
	y, err := f(aq, bq, newAccumSpec(lf, ra, rb))
	if err != nil {
		return nil, fmt.Errorf("qgraph: layer %s: %w", layer, err)
	}
	return quantizeRole(&c, layer, "out", y, lf.Out, lf.Err)
}

func operand(c *config, lf nn.LayerFormats, layer, which string, x *gorgonia.Node, r Operand) (*gorgonia.Node, error) {
	if r == Weight {
		return quantizeRole(c, layer, which+".weight", x, lf.Weight, lf.WGrad)
	}
	return quantizeRole(c, layer, which+".act", x, lf.Act, lf.Err)
}

// quantizeRole inserts a quantizer rounding x by the element-wise formats
// of fwd and its gradient by bwd's (block formats are the layer kernels'),
// with a seed derived from the layer and role, so that every node has its
// own random stream.
func quantizeRole(c *config, layer, role string, x *gorgonia.Node, fwd, bwd nn.Quantizer) (*gorgonia.Node, error) {
	opts := []Option{WithBackwardRounding(bwd.Rounding)}
	if c.seeded {
		opts = append(opts, WithSeed(deriveSeed(c.seed, layer, role)))
	}
	q, err := Quantize(x, fwd.Format, bwd.Format, fwd.Rounding, opts...)
	if err != nil {
		return nil, fmt.Errorf("qgraph: layer %s, %s: %w", layer, role, err)
	}
	return q, nil
}

// hasBlocks reports whether a dot-product role of lf has a block format.
func hasBlocks(lf nn.LayerFormats) bool { return blockRoles(lf) != nn.LayerFormats{} }

// blockRoles returns the block formats of lf's dot-product roles alone,
// rounded to nearest: what Rewrite's layer kernels apply.
func blockRoles(lf nn.LayerFormats) nn.LayerFormats {
	b := func(q nn.Quantizer) nn.Quantizer { return nn.Quantizer{Block: q.Block} }
	return nn.LayerFormats{Weight: b(lf.Weight), Act: b(lf.Act), Out: b(lf.Out), Err: b(lf.Err), WGrad: b(lf.WGrad)}
}

// checkBlocks reports block formats Rewrite cannot apply as nn does: with
// quire or per-op accumulation, stochastic rounding, or beside an
// element-wise format of the same role.
func checkBlocks(lf nn.LayerFormats, layer string) error {
	if !hasBlocks(lf) {
		return nil
	}
	if lf.Accum != quant.AccumFP32 {
		return fmt.Errorf("layer %s: block formats with %v accumulation are available in the fused layers of nn only", layer, lf.Accum)
	}
	for _, q := range [...]nn.Quantizer{lf.Weight, lf.Act, lf.Out, lf.Err, lf.WGrad} {
		switch {
		case q.Block.IsZero():
		case q.Rounding != quant.Nearest:
			return fmt.Errorf("layer %s: block formats with %v rounding are available in the fused layers of nn only", layer, q.Rounding)
		case q.Format != nil:
			return fmt.Errorf("layer %s: a role with both a format (%v) and a block format (%v)", layer, q.Format, q.Block)
		}
	}
	return nil
}

// deriveSeed hashes (seed, layer, role) into a seed.
func deriveSeed(seed uint64, layer, role string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", seed, layer, role)
	return h.Sum64()
}

// Mul is gorgonia.Mul(x, w) for an activation x and a weight w, quantized
// as p asks for in layer (see Dot). Quire and per-op accumulation are
// supported when x and w are matrices.
func Mul(p nn.Policy, layer string, x, w *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	if acc := nn.FormatsOf(p, layer).Accum; acc != quant.AccumFP32 && !(x.IsMatrix() && w.IsMatrix()) {
		// Checked first so that no node is added on error.
		return nil, fmt.Errorf("qgraph: layer %s: %v accumulation: want two matrices, got shapes %v and %v", layer, acc, x.Shape(), w.Shape())
	}
	return dot(p, layer, func(a, b *gorgonia.Node, s accumSpec) (*gorgonia.Node, error) {
		if s.accum == quant.AccumFP32 {
			return gorgonia.Mul(a, b)
		}
		return accumMatMul(s, a, b, false, false)
	}, x, w, Act, Weight, opts...)
}

// Conv2d is gorgonia.Conv2d(x, w, ...) for an activation x and a filter
// w, quantized as p asks for in layer (see Dot). The activation is
// rounded before the im2col expansion, so its error is rounded after the
// backward pass sums the overlapping windows, as the hardware would.
// With quire or per-op accumulation the convolution is built as
// gorgonia.Conv2d builds it (im2col, matrix multiply, reshape, transpose)
// with the matrix multiply replaced. The forward pass and the weight
// gradient then accumulate exactly as asked; the error passed back to x
// does so within each window and is rounded there to Err (or the
// layer's AccumFormat), then the windows' contributions are summed in the
// graph's dtype and rounded to Err once more. This is what nn.Conv2d
// does (Rewrite is checked against it); a quire over the whole transposed
// convolution would round once.
func Conv2d(p nn.Policy, layer string, x, w *gorgonia.Node, kernel tensor.Shape, pad, stride, dilation []int, opts ...Option) (*gorgonia.Node, error) {
	return dot(p, layer, func(a, b *gorgonia.Node, s accumSpec) (*gorgonia.Node, error) {
		if s.accum == quant.AccumFP32 {
			return gorgonia.Conv2d(a, b, kernel, pad, stride, dilation)
		}
		return accumConv2d(s, a, b, kernel, pad, stride, dilation)
	}, x, w, Act, Weight, opts...)
}

// accumConv2d is gorgonia.Conv2d's construction with an accumulating
// matrix multiply.
func accumConv2d(s accumSpec, x, w *gorgonia.Node, kernel tensor.Shape, pad, stride, dilation []int) (*gorgonia.Node, error) {
	if pad == nil {
		pad = []int{0, 0}
	}
	if dilation == nil {
		dilation = []int{1, 1}
	}
	if x.Dims() != 4 || w.Dims() != 4 {
		return nil, fmt.Errorf("conv2d: want 4-d input and filter, got %v and %v", x.Shape(), w.Shape())
	}
	col, err := gorgonia.Im2Col(x, kernel, pad, stride, dilation)
	if err != nil {
		return nil, err
	}
	ws := w.Shape()
	cs := col.Shape() // (batch, outH, outW, c·kh·kw)
	if cs[3] != ws[1]*ws[2]*ws[3] {
		return nil, fmt.Errorf("conv2d: filter %v does not match input %v", ws, x.Shape())
	}
	wf, err := gorgonia.Reshape(w, tensor.Shape{ws[0], cs[3]})
	if err != nil {
		return nil, err
	}
	patches, err := gorgonia.Reshape(col, tensor.Shape{cs[0] * cs[1] * cs[2], cs[3]})
	if err != nil {
		return nil, err
	}
	// The gradient of the patches is rounded to Err (or AccumFormat) here,
	// summed over overlapping windows by im2col's backward pass in the
	// graph's dtype, and rounded to Err again by the activation's
	// quantizer: what nn.Conv2d does.
	y, err := accumMatMul(s, patches, wf, false, true)
	if err != nil {
		return nil, err
	}
	if y, err = gorgonia.Reshape(y, tensor.Shape{cs[0], cs[1], cs[2], ws[0]}); err != nil {
		return nil, err
	}
	return gorgonia.Transpose(y, 0, 3, 1, 2)
}

// BatchedMatMul is gorgonia.BatchedMatMul(a, b, transA, transB) with the
// operand roles ra and rb (two activations, as in attention, or an
// activation and a weight), quantized as p asks for in layer (see Dot).
func BatchedMatMul(p nn.Policy, layer string, a, b *gorgonia.Node, ra, rb Operand, transA, transB bool, opts ...Option) (*gorgonia.Node, error) {
	bmm := func(a, b *gorgonia.Node) (*gorgonia.Node, error) {
		return gorgonia.BatchedMatMul(a, b, transA, transB)
	}
	return Dot(p, layer, bmm, a, b, ra, rb, opts...)
}

// elem returns q's element-wise part: q without its block format, which
// Rewrite's layer kernels apply.
func elem(q nn.Quantizer) nn.Quantizer {
	q.Block = quant.BlockFormat{}
	return q
}
