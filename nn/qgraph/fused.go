package qgraph

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/graphop"
	"github.com/positgan/positgan/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The ops in this file let Rewrite compute a layer with the kernels of the
// fused layers of nn, so that with fp32 accumulation a rewritten network
// and the same network built from nn.Linear and nn.Conv2d give the same
// bits. Gorgonia's own ops sum in other orders: its matrix multiplies call
// SGEMM with other operand layouts (gonum's SGEMM sums a dot product in
// order for some layouts and in SIMD lanes for others), its im2col
// backward adds a pixel's window contributions in another order, and its
// broadcast backward sums a bias gradient in float32.

// layerProduct is a matrix multiply C = op(A)·op(B) one of whose operands
// is a weight, computed by the kernel of a fused layer of nn. With the
// activation as X (m×k, one row per sample or output position) and the
// weight as W (n×k, one row per output channel, as nn stores it), Y = X·Wᵀ
// is C, or Cᵀ when the weight is the left operand. Layout linear takes
// nn.Linear's kernel on X and W; layout conv, for an activation that is an
// im2col's patches, nn.Conv2d's kernel for the 1×1 convolution of Xᵀ, the
// column matrix. The operands are packed into these layouts, and the
// results back, by copies: the arithmetic is nn's.
type layerProduct struct {
	conv   bool // nn.Conv2d's layout, else nn.Linear's
	weight int  // the weight operand: 0 (A) or 1 (B)
	tA, tB bool
	// blk are the layer's block formats alone (rounded to nearest, see
	// blockRoles), which the kernel applies to each product's operands as
	// nn's layers do.
	blk nn.LayerFormats
}

func (p layerProduct) String() string {
	t := func(b bool) string {
		if b {
			return "ᵀ"
		}
		return ""
	}
	layout := "linear"
	if p.conv {
		layout = "conv"
	}
	if p.blk != (nn.LayerFormats{}) {
		layout += fmt.Sprintf(",blocks=%v/%v/%v", p.blk.Weight.Block, p.blk.Act.Block, p.blk.Err.Block)
	}
	return fmt.Sprintf("A%s ×[%s,w=%c] B%s", t(p.tA), layout, "AB"[p.weight], t(p.tB))
}

// matMulDims returns the sizes of op(a)·op(b) for matrices of shapes sa
// and sb, transposed as tA and tB say; op names the product in errors.
func matMulDims(op string, tA, tB bool, sa, sb tensor.Shape) (m, n, k int, err error) {
	if len(sa) != 2 || len(sb) != 2 {
		return 0, 0, 0, fmt.Errorf("qgraph: %s: want matrices, got shapes %v and %v", op, sa, sb)
	}
	m, k = sa[0], sa[1]
	if tA {
		m, k = k, m
	}
	kb, n := sb[0], sb[1]
	if tB {
		kb, n = n, kb
	}
	if k != kb {
		return 0, 0, 0, fmt.Errorf("qgraph: %s: inner dimensions of %v and %v differ", op, sa, sb)
	}
	return m, n, k, nil
}

// layerKernel is the kernel of one layerProduct node, shared by its
// forward op and its two gradient ops, as a layer of nn shares it.
type layerKernel struct {
	layerProduct
	M, N, K int // op(A) is M×K, op(B) K×N
	m, n, k int // X is m×k, W n×k
	lin     *nn.LinearKernel
	conv2d  *nn.Conv2dKernel
}

// layerMatMul returns the node p computes from a and b.
func layerMatMul(p layerProduct, a, b *gorgonia.Node) (*gorgonia.Node, error) {
	sa, sb := a.Shape().Clone(), b.Shape().Clone()
	lk := &layerKernel{layerProduct: p}
	name := fmt.Sprintf("qgraph.layer[%p](%v)", lk, p)
	var err error
	if lk.M, lk.N, lk.K, err = matMulDims(name, p.tA, p.tB, sa, sb); err != nil {
		return nil, err
	}
	lk.m, lk.n, lk.k = lk.M, lk.N, lk.K
	if p.weight == 0 {
		lk.m, lk.n = lk.N, lk.M
	}
	f := p.blk
	if p.conv {
		lk.conv2d, err = nn.NewConv2dKernel(1, lk.k, 1, lk.m, lk.n, 1, 1, 0, f)
	} else {
		lk.lin, err = nn.NewLinearKernel(lk.m, lk.k, lk.n, f)
	}
	if err != nil {
		return nil, fmt.Errorf("qgraph: %s: %w", name, err)
	}
	op := &graphop.Diff{
		Func: graphop.Func{
			Name: name,
			In:   []tensor.Shape{sa, sb},
			Out:  tensor.Shape{lk.M, lk.N},
			Fn: recovered(name, func(in []*tensor.Dense) (*tensor.Dense, error) {
				if in[0].Dtype() == tensor.Float32 {
					return layerForward(lk, in[0].Float32s(), in[1].Float32s()), nil
				}
				return layerForward(lk, in[0].Float64s(), in[1].Float64s()), nil
			}),
			CopyViews: true,
		},
		WRT: []bool{true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		var res gorgonia.Nodes
		for i, s := range []tensor.Shape{sa, sb} {
			bname := fmt.Sprintf("%s.d%c", name, "AB"[i])
			bop := &graphop.Func{
				Name: bname,
				In:   []tensor.Shape{output.Shape().Clone(), grad.Shape().Clone()},
				Out:  s,
				Fn: recovered(bname, func(in []*tensor.Dense) (*tensor.Dense, error) {
					g := in[1]
					if g.Dtype() == tensor.Float32 {
						return layerBackward(lk, i, g.Float32s(), s), nil
					}
					return layerBackward(lk, i, g.Float64s(), s), nil
				}),
				CopyViews: true,
			}
			// The output is an input so that the gradient runs after the
			// forward op, whose kernel state it reads.
			n, err := gorgonia.ApplyOp(bop, output, grad)
			if err != nil {
				return nil, err
			}
			res = append(res, n)
		}
		return res, nil
	}
	return gorgonia.ApplyOp(op, a, b)
}

// tensorOf returns s as a tensor of the given shape, sharing s.
func tensorOf[T compute.Float](s []T, shape ...int) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(s))
}

// pack returns op(src) as a new r×c row-major matrix, where src is r×c
// (trans false) or c×r (trans true), row-major and contiguous.
func pack[T compute.Float](src []T, r, c int, trans bool) []T {
	dst := make([]T, r*c)
	if !trans {
		copy(dst, src[:r*c])
		return dst
	}
	return packInto(dst, src, r, c)
}

// packOperand returns op(A) (M×K) if i is 0, op(B) (K×N) if it is 1, as a new
// matrix, transposed if t.
func packOperand[T compute.Float](lk *layerKernel, a, b []T, i int, t bool) []T {
	M, N, K := lk.M, lk.N, lk.K
	if i == 0 {
		if t {
			return pack(a, K, M, !lk.tA)
		}
		return pack(a, M, K, lk.tA)
	}
	if t {
		return pack(b, N, K, !lk.tB)
	}
	return pack(b, K, N, lk.tB)
}

// layerForward returns the value of C = op(A)·op(B) as an M×N tensor. The
// packed operands are new at every run: the kernel keeps them for the
// gradients.
func layerForward[T compute.Float](lk *layerKernel, a, b []T) *tensor.Dense {
	m, n, k := lk.m, lk.n, lk.k
	act := 1 - lk.weight
	W := packOperand(lk, a, b, lk.weight, lk.weight == 1) // n×k
	if lk.conv {
		Xt := packOperand(lk, a, b, act, act == 0) // k×m
		Yt := make([]T, n*m)
		lk.conv2d.Forward(tensorOf(Yt, n, m), tensorOf(Xt, k, m), tensorOf(W, n, k), nil)
		if lk.weight == 0 {
			return tensorOf(Yt, lk.M, lk.N) // C = Yᵀ
		}
		return tensorOf(pack(Yt, m, n, true), lk.M, lk.N)
	}
	X := packOperand(lk, a, b, act, act == 1) // m×k
	Y := make([]T, m*n)
	lk.lin.Forward(tensorOf(Y, m, n), tensorOf(X, m, k), tensorOf(W, n, k), nil)
	if lk.weight == 0 {
		return tensorOf(pack(Y, n, m, true), lk.M, lk.N)
	}
	return tensorOf(Y, lk.M, lk.N)
}

// layerBackward returns the gradient of operand i (0: A, 1: B), of shape
// s, given g, the gradient of C (M×N).
func layerBackward[T compute.Float](lk *layerKernel, i int, g []T, s tensor.Shape) *tensor.Dense {
	m, n, k := lk.m, lk.n, lk.k
	M, N, K := lk.M, lk.N, lk.K
	// gy returns the gradient of Y, m×n, or of Yᵀ (n×m) if t.
	gy := func(t bool) []T {
		if lk.weight == 1 {
			return pack(g, pick(t, n, m), pick(t, m, n), t)
		}
		return pack(g, pick(t, n, m), pick(t, m, n), !t)
	}
	act := 1 - lk.weight
	if i == act {
		var dX []T // m×k
		if lk.conv {
			dXt := make([]T, k*m)
			lk.conv2d.BackX(tensorOf(dXt, k, m), tensorOf(gy(true), n, m))
			dX = pack(dXt, m, k, true)
		} else {
			dX = make([]T, m*k)
			lk.lin.BackX(tensorOf(dX, m, k), tensorOf(gy(false), m, n))
		}
		// d op(A) = dX (M×K) if A is the activation; d op(B) = dXᵀ (K×N).
		if act == 0 {
			return tensorOf(pack(dX, pick(lk.tA, K, M), pick(lk.tA, M, K), lk.tA), s...)
		}
		return tensorOf(pack(dX, pick(lk.tB, N, K), pick(lk.tB, K, N), !lk.tB), s...)
	}
	dW := make([]T, n*k)
	if lk.conv {
		lk.conv2d.BackW(tensorOf(dW, n, k), tensorOf(gy(true), n, m))
	} else {
		lk.lin.BackW(tensorOf(dW, n, k), tensorOf(gy(false), m, n))
	}
	// d op(B) = dWᵀ (K×N) if B is the weight; d op(A) = dW (M×K).
	if lk.weight == 1 {
		return tensorOf(pack(dW, pick(lk.tB, N, K), pick(lk.tB, K, N), !lk.tB), s...)
	}
	return tensorOf(pack(dW, pick(lk.tA, K, M), pick(lk.tA, M, K), lk.tA), s...)
}

func pick(c bool, x, y int) int {
	if c {
		return x
	}
	return y
}

// geom returns the geometry of an im2col with parameters p of images of
// shape s (B, C, H, W).
func (p im2colParams) geom(s tensor.Shape) compute.Geom {
	g := compute.Geom{C: s[1], H: s[2], W: s[3], KH: p.kh, KW: p.kw, SH: p.sh, SW: p.sw, PH: p.ph, PW: p.pw}
	g.OH = (g.H+2*g.PH-g.KH)/g.SH + 1
	g.OW = (g.W+2*g.PW-g.KW)/g.SW + 1
	return g
}

func (p im2colParams) String() string {
	return fmt.Sprintf("(%d,%d), (%d, %d), (%d,%d)", p.kh, p.kw, p.ph, p.pw, p.sh, p.sw)
}

// im2colShape returns the shape of the im2col with parameters p of images
// of shape s: (B, OH, OW, C·KH·KW), as Gorgonia's.
func im2colShape(p im2colParams, s tensor.Shape) (tensor.Shape, error) {
	if len(s) != 4 {
		return nil, fmt.Errorf("qgraph: im2col<%v>: input shape %v, want 4-d", p, s)
	}
	g := p.geom(s)
	if g.OH <= 0 || g.OW <= 0 {
		return nil, fmt.Errorf("qgraph: im2col<%v>: input %v gives an empty output", p, s)
	}
	return tensor.Shape{s[0], g.OH, g.OW, g.Rows()}, nil
}

// im2col returns gorgonia.Im2Col(x, ...) (dilation 1) computed with
// gemm.Im2col. Its gradient is col2im, computed with gemm.Col2im, which
// adds each pixel's window contributions in the order nn.Conv2d does.
func im2col(x *gorgonia.Node, p im2colParams) (*gorgonia.Node, error) {
	img := x.Shape().Clone()
	cols, err := im2colShape(p, img)
	if err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(im2colOp(p, false, img, cols), x)
}

// im2colOp is im2col from images of shape img to patches of shape cols,
// or (back) col2im the other way; each is the other's gradient.
func im2colOp(p im2colParams, back bool, img, cols tensor.Shape) *graphop.Diff {
	name, in, out := "gemm.im2col", img, cols
	if back {
		name, in, out = "gemm.col2im", cols, img
	}
	name = fmt.Sprintf("%s<%v>%v", name, p, img)
	g := p.geom(img)
	op := &graphop.Diff{
		Func: graphop.Func{
			Name: name,
			In:   []tensor.Shape{in.Clone()},
			Out:  out.Clone(),
			Fn: recovered(name, func(in []*tensor.Dense) (*tensor.Dense, error) {
				x := in[0]
				if x.Dtype() == tensor.Float32 {
					return tensorOf(im2colDo(back, x.Float32s(), img[0], g), out...), nil
				}
				return tensorOf(im2colDo(back, x.Float64s(), img[0], g), out...), nil
			}),
			CopyViews: true,
		},
		WRT: []bool{true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		n, err := gorgonia.ApplyOp(im2colOp(p, !back, img, cols), grad)
		if err != nil {
			return nil, err
		}
		return gorgonia.Nodes{n}, nil
	}
	return op
}

// im2colDo packs each of the batch images of src into its (P, rows)
// patches, or (back) adds such patches back into images.
func im2colDo[T compute.Float](back bool, src []T, batch int, g compute.Geom) []T {
	rows, p, img := g.Rows(), g.Cols(), g.C*g.H*g.W
	col := make([]T, rows*p)
	if back {
		dst := make([]T, batch*img)
		for i := 0; i < batch; i++ {
			col = packInto(col, src[i*p*rows:(i+1)*p*rows], rows, p)
			compute.Col2im(dst[i*img:(i+1)*img], col, p, g)
		}
		return dst
	}
	dst := make([]T, batch*p*rows)
	for i := 0; i < batch; i++ {
		compute.Im2col(col, p, src[i*img:(i+1)*img], g)
		packInto(dst[i*p*rows:(i+1)*p*rows], col, p, rows)
	}
	return dst
}

// packInto sets dst (r×c) to the transpose of src (c×r) and returns it.
func packInto[T compute.Float](dst, src []T, r, c int) []T {
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			dst[i*c+j] = src[j*r+i]
		}
	}
	return dst
}

// biasAdd returns x + b, the bias b added along axis 1 of x (a layer's
// output, (B, C) or (B, C, H, W)); b holds C values in any shape. The
// gradient of b sums the incoming gradient over every axis but 1 with
// nn.SumBias, as nn's layers sum their bias gradients.
func biasAdd(x, b *gorgonia.Node) (*gorgonia.Node, error) {
	xs, bs := x.Shape().Clone(), b.Shape().Clone()
	if len(xs) < 2 {
		return nil, fmt.Errorf("qgraph: +bias: input shape %v, want (batch, channels, ...)", xs)
	}
	if bs.TotalSize() != xs[1] {
		return nil, fmt.Errorf("qgraph: +bias: bias shape %v does not hold %d values", bs, xs[1])
	}
	n, c := xs[0], xs[1]
	inner := xs.TotalSize() / (n * c)
	op := &graphop.Diff{
		Func: graphop.Func{
			Name: "qgraph.+bias",
			In:   []tensor.Shape{xs, bs},
			Out:  xs,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				if in[0].Dtype() == tensor.Float32 {
					return tensorOf(addBias(in[0].Float32s(), in[1].Float32s(), n*c, inner), xs...), nil
				}
				return tensorOf(addBias(in[0].Float64s(), in[1].Float64s(), n*c, inner), xs...), nil
			},
			CopyViews: true,
		},
		WRT: []bool{true, true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		bop := &graphop.Func{
			Name: "qgraph.∂bias",
			In:   []tensor.Shape{xs},
			Out:  bs,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				if dy := in[0]; dy.Dtype() == tensor.Float32 {
					db := make([]float32, c)
					nn.SumBias(db, dy.Float32s(), n, inner)
					return tensorOf(db, bs...), nil
				}
				db := make([]float64, c)
				nn.SumBias(db, in[0].Float64s(), n, inner)
				return tensorOf(db, bs...), nil
			},
			CopyViews: true,
		}
		db, err := gorgonia.ApplyOp(bop, grad)
		if err != nil {
			return nil, err
		}
		return gorgonia.Nodes{grad, db}, nil
	}
	return gorgonia.ApplyOp(op, x, b)
}

// addBias returns x with bias[i%c] added to its i-th run of inner values,
// for the rows = n·c runs of x.
func addBias[T compute.Float](x, bias []T, rows, inner int) []T {
	c := len(bias)
	y := make([]T, len(x))
	for i := 0; i < rows; i++ {
		v := bias[i%c]
		for p := i * inner; p < (i+1)*inner; p++ {
			y[p] = x[p] + v
		}
	}
	return y
}
