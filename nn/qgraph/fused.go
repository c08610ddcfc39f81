package qgraph

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The ops in this file let Rewrite compute a layer in the order of
// floating-point operations the fused layers of nn use, so that
// with fp32 accumulation a rewritten network and the same network built
// from nn.Linear and nn.Conv2d give the same bits. Gorgonia's own ops sum
// in other orders: its matrix multiplies call SGEMM with other operand
// layouts (gonum's SGEMM sums a dot product in order for some layouts and
// in SIMD lanes for others), its im2col backward adds a pixel's window
// contributions in another order, and its broadcast backward sums a bias
// gradient in float32.

// layerMatMulOp is a matrix multiply C = op(A)·op(B) one of whose operands
// is a weight, computed as the fused layers compute it. With the
// activation as X (m×k, one row per sample or output position) and the
// weight as W (n×k, one row per output channel, as nn stores it), Y = X·Wᵀ
// is C, or Cᵀ when the weight is the left operand. Layout linear (nn.Linear)
// calls compute.Gemm on X and W; layout conv (nn.Conv2d) on W and Xᵀ, the
// column matrix. The gradients are the same op with grad set to 1 (of A)
// or 2 (of B) and the upstream gradient as a third input.
type layerMatMulOp struct {
	conv   bool // nn.Conv2d's layout, else nn.Linear's
	weight int  // the weight operand: 0 (A) or 1 (B)
	tA, tB bool
	grad   int // 0: the product; 1, 2: the gradient of A, B
	// blk are the layer's block formats (rounded to nearest): each
	// product's operands are blocked along its reduction dimension, from
	// the unrounded values, as nn's fused layers block them.
	blk nn.BlockRoles
}

func (op *layerMatMulOp) Arity() int {
	if op.grad == 0 {
		return 2
	}
	return 3
}

func (op *layerMatMulOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	if op.grad == 0 {
		return hm.NewFnType(a, a, a)
	}
	return hm.NewFnType(a, a, a, a)
}

// dims returns the sizes of op(A) (M×K) and op(B) (K×N).
func (op *layerMatMulOp) dims(sa, sb tensor.Shape) (M, N, K int, err error) {
	return matMulDims(op, op.tA, op.tB, sa, sb)
}

// matMulDims returns the sizes of op(a)·op(b) for matrices of shapes sa
// and sb, transposed as tA and tB say.
func matMulDims(op fmt.Stringer, tA, tB bool, sa, sb tensor.Shape) (m, n, k int, err error) {
	if len(sa) != 2 || len(sb) != 2 {
		return 0, 0, 0, fmt.Errorf("qgraph: %v: want matrices, got shapes %v and %v", op, sa, sb)
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
		return 0, 0, 0, fmt.Errorf("qgraph: %v: inner dimensions of %v and %v differ", op, sa, sb)
	}
	return m, n, k, nil
}

func (op *layerMatMulOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("qgraph: %v takes %d inputs, got %d", op, op.Arity(), len(in))
	}
	sa, ok1 := in[0].(tensor.Shape)
	sb, ok2 := in[1].(tensor.Shape)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("qgraph: %v: inputs are not shapes", op)
	}
	M, N, _, err := op.dims(sa, sb)
	switch {
	case err != nil:
		return nil, err
	case op.grad == 1:
		return sa.Clone(), nil
	case op.grad == 2:
		return sb.Clone(), nil
	}
	return tensor.Shape{M, N}, nil
}

func (op *layerMatMulOp) ReturnsPtr() bool     { return false }
func (op *layerMatMulOp) CallsExtern() bool    { return false }
func (op *layerMatMulOp) OverwritesInput() int { return -1 }

func (op *layerMatMulOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "qgraph.layermatmul{conv=%v,weight=%d,tA=%v,tB=%v,grad=%d", op.conv, op.weight, op.tA, op.tB, op.grad)
	if !op.blk.IsZero() {
		fmt.Fprintf(h, ",blocks=%v/%v/%v", op.blk.Weight, op.blk.Act, op.blk.Err)
	}
	fmt.Fprint(h, "}")
}

func (op *layerMatMulOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *layerMatMulOp) String() string {
	t := func(b bool) string {
		if b {
			return "ᵀ"
		}
		return ""
	}
	layout := "linear"
	if op.conv {
		layout = "conv"
	}
	if !op.blk.IsZero() {
		layout += fmt.Sprintf(",blocks=%v/%v/%v", op.blk.Weight, op.blk.Act, op.blk.Err)
	}
	s := fmt.Sprintf("A%s ×[%s,w=%c] B%s", t(op.tA), layout, "AB"[op.weight], t(op.tB))
	if op.grad > 0 {
		s = fmt.Sprintf("∂%c(%s)", "AB"[op.grad-1], s)
	}
	return s
}

func (op *layerMatMulOp) DiffWRT(inputs int) []bool {
	if op.grad == 0 {
		return []bool{true, true}
	}
	return []bool{false, false, false} // no second derivatives
}

func (op *layerMatMulOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad != 0 || len(inputs) != 2 {
		return nil, fmt.Errorf("qgraph: %v: no second derivatives", op)
	}
	var res gorgonia.Nodes
	for i := 1; i <= 2; i++ {
		d := *op
		d.grad = i
		n, err := gorgonia.ApplyOp(&d, inputs[0], inputs[1], grad)
		if err != nil {
			return nil, err
		}
		res = append(res, n)
	}
	return res, nil
}

func (op *layerMatMulOp) Do(vals ...gorgonia.Value) (v gorgonia.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("qgraph: %v: %v", op, r)
		}
	}()
	ts, err := denseInputs(op, vals)
	if err != nil {
		return nil, err
	}
	M, N, K, err := op.dims(ts[0].Shape(), ts[1].Shape())
	if err != nil {
		return nil, err
	}
	shape := tensor.Shape{M, N}
	switch op.grad {
	case 1:
		shape = ts[0].Shape().Clone()
	case 2:
		shape = ts[1].Shape().Clone()
	}
	var out any
	switch ts[0].Dtype() {
	case tensor.Float32:
		out, err = layerMatMul[float32](op, ts, M, N, K)
	case tensor.Float64:
		out, err = layerMatMul[float64](op, ts, M, N, K)
	default:
		err = fmt.Errorf("qgraph: %v: dtype %v, want float32 or float64", op, ts[0].Dtype())
	}
	if err != nil {
		return nil, err
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

// denseInputs returns vals as materialised tensors of one dtype.
func denseInputs(op gorgonia.Op, vals []gorgonia.Value) ([]*tensor.Dense, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("qgraph: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	ts := make([]*tensor.Dense, len(vals))
	for i, v := range vals {
		t, ok := v.(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("qgraph: %v: input %d is a %T, want a tensor", op, i, v)
		}
		if t.RequiresIterator() {
			t = t.Materialize().(*tensor.Dense)
		}
		if i > 0 && t.Dtype() != ts[0].Dtype() {
			return nil, fmt.Errorf("qgraph: %v: mixed dtypes %v and %v", op, ts[0].Dtype(), t.Dtype())
		}
		ts[i] = t
	}
	return ts, nil
}

// pack returns op(src) as a new r×c row-major matrix, where src is r×c
// (trans false) or c×r (trans true), row-major and contiguous.
func pack[T compute.Float](src []T, r, c int, trans bool) []T {
	dst := make([]T, r*c)
	if !trans {
		copy(dst, src[:r*c])
		return dst
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			dst[i*c+j] = src[j*r+i]
		}
	}
	return dst
}

// layerMatMul computes the value of op: C = op(A)·op(B) or one of its
// gradients, with the calls to compute.Gemm nn.Linear (linear) or nn.Conv2d
// (conv) makes. Buffers are fresh, of the sizes nn's are, so that SIMD
// dot products see the same alignment.
func layerMatMul[T compute.Float](op *layerMatMulOp, ts []*tensor.Dense, M, N, K int) ([]T, error) {
	a, b := ts[0].Data().([]T), ts[1].Data().([]T)
	// opnd returns op(A) (M×K) or op(B) (K×N), transposed if t.
	opnd := func(i int, t bool) []T {
		if i == 0 {
			if t {
				return pack(a, K, M, !op.tA)
			}
			return pack(a, M, K, op.tA)
		}
		if t {
			return pack(b, N, K, !op.tB)
		}
		return pack(b, K, N, op.tB)
	}
	act := 1 - op.weight
	m, n, k := M, N, K
	if op.weight == 0 {
		m, n = N, M
	}
	// X is m×k, Xt its transpose, W n×k.
	W := opnd(op.weight, op.weight == 1)
	var X, Xt []T
	if op.conv {
		Xt = opnd(act, act == 0)
	} else {
		X = opnd(act, act == 1)
	}
	// Block formats: every operand blocked along the reduction dimension
	// of its product, as nn.Linear and nn.Conv2d do (W is n×k, X m×k, Xt
	// k×m; GY m×n, GYt n×m).
	block := func(b quant.BlockFormat, s []T, rows, cols int, axis quant.Axis) {
		if !b.IsZero() {
			compute.RoundMatrix(compute.NewBlockRounder(b, quant.Nearest, nil), s, s, rows, cols, axis)
		}
	}
	if op.grad == 0 {
		block(op.blk.Weight, W, n, k, quant.AlongRow)
		if op.conv {
			block(op.blk.Act, Xt, k, m, quant.AlongColumn)
		} else {
			block(op.blk.Act, X, m, k, quant.AlongRow)
		}
		var Y []T // m×n
		if op.conv {
			Yt := make([]T, n*m)
			compute.Gemm(false, false, n, m, k, 1, W, k, Xt, m, 0, Yt, m)
			if op.weight == 0 {
				return Yt, nil // C = Yᵀ
			}
			Y = pack(Yt, m, n, true)
		} else {
			Y = make([]T, m*n)
			compute.Gemm(false, true, m, n, k, 1, X, k, W, k, 0, Y, n)
		}
		if op.weight == 0 {
			return pack(Y, n, m, true), nil
		}
		return Y, nil
	}
	// The upstream gradient of C (M×N) as GY (m×n) or GYt (n×m).
	g := ts[2].Data().([]T)
	gy := func(t bool) []T { // GY, or GYt if t
		if op.weight == 1 {
			return pack(g, pick(t, n, m), pick(t, m, n), t)
		}
		return pack(g, pick(t, n, m), pick(t, m, n), !t)
	}
	if op.grad-1 == act {
		block(op.blk.Weight, W, n, k, quant.AlongColumn)
		var dX []T // m×k
		if op.conv {
			dXt := make([]T, k*m)
			g := gy(true)
			block(op.blk.Err, g, n, m, quant.AlongColumn)
			compute.Gemm(true, false, k, m, n, 1, W, k, g, m, 0, dXt, m)
			dX = pack(dXt, m, k, true)
		} else {
			dX = make([]T, m*k)
			g := gy(false)
			block(op.blk.Err, g, m, n, quant.AlongRow)
			compute.Gemm(false, false, m, k, n, 1, g, n, W, k, 0, dX, k)
		}
		// d op(A) = dX (M×K) if A is the activation; d op(B) = dXᵀ (K×N).
		if act == 0 {
			return pack(dX, pick(op.tA, K, M), pick(op.tA, M, K), op.tA), nil
		}
		return pack(dX, pick(op.tB, N, K), pick(op.tB, K, N), !op.tB), nil
	}
	dW := make([]T, n*k)
	if op.conv {
		g := gy(true)
		block(op.blk.Err, g, n, m, quant.AlongRow)
		block(op.blk.Act, Xt, k, m, quant.AlongRow)
		compute.Gemm(false, true, n, k, m, 1, g, m, Xt, m, 0, dW, k)
	} else {
		g := gy(false)
		block(op.blk.Err, g, m, n, quant.AlongColumn)
		block(op.blk.Act, X, m, k, quant.AlongColumn)
		compute.Gemm(true, false, n, k, m, 1, g, n, X, k, 0, dW, k)
	}
	// d op(B) = dWᵀ (K×N) if B is the weight; d op(A) = dW (M×K).
	if op.weight == 1 {
		return pack(dW, pick(op.tB, N, K), pick(op.tB, K, N), !op.tB), nil
	}
	return pack(dW, pick(op.tA, K, M), pick(op.tA, M, K), op.tA), nil
}

func pick(c bool, x, y int) int {
	if c {
		return x
	}
	return y
}

// im2colOp is gorgonia.Im2Col (dilation 1) computed with compute.Im2col, and
// its gradient with compute.Col2im, which adds each pixel's window
// contributions in the order nn.Conv2d does. Input (B, C, H, W), output
// (B, OH, OW, C·KH·KW) as Gorgonia's; col2im (back true) maps the other
// way, to shape in.
type im2colOp struct {
	p    im2colParams
	back bool
	in   tensor.Shape // col2im: the image shape
}

func (op *im2colOp) geom(s tensor.Shape) compute.Geom {
	p := op.p
	g := compute.Geom{C: s[1], H: s[2], W: s[3], KH: p.kh, KW: p.kw, SH: p.sh, SW: p.sw, PH: p.ph, PW: p.pw}
	g.OH = (g.H+2*g.PH-g.KH)/g.SH + 1
	g.OW = (g.W+2*g.PW-g.KW)/g.SW + 1
	return g
}

func (op *im2colOp) Arity() int { return 1 }

func (op *im2colOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}

func (op *im2colOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("qgraph: %v takes 1 input, got %d", op, len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok || len(s) != 4 {
		return nil, fmt.Errorf("qgraph: %v: input shape %v, want 4-d", op, in[0])
	}
	if op.back {
		return op.in.Clone(), nil
	}
	g := op.geom(s)
	if g.OH <= 0 || g.OW <= 0 {
		return nil, fmt.Errorf("qgraph: %v: input %v gives an empty output", op, s)
	}
	return tensor.Shape{s[0], g.OH, g.OW, g.Rows()}, nil
}

func (op *im2colOp) ReturnsPtr() bool     { return false }
func (op *im2colOp) CallsExtern() bool    { return false }
func (op *im2colOp) OverwritesInput() int { return -1 }

func (op *im2colOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "qgraph.im2col{%+v,back=%v,in=%v}", op.p, op.back, op.in)
}

func (op *im2colOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *im2colOp) String() string {
	name := "im2col"
	if op.back {
		name = "col2im"
	}
	p := op.p
	return fmt.Sprintf("gemm.%s<(%d,%d), (%d, %d), (%d,%d)>", name, p.kh, p.kw, p.ph, p.pw, p.sh, p.sw)
}

func (op *im2colOp) DiffWRT(inputs int) []bool { return []bool{true} }

// SymDiff: col2im is im2col's adjoint, and the other way round.
func (op *im2colOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d := &im2colOp{p: op.p, back: !op.back}
	if d.back {
		d.in = inputs[0].Shape().Clone()
	}
	n, err := gorgonia.ApplyOp(d, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{n}, nil
}

func (op *im2colOp) Do(vals ...gorgonia.Value) (v gorgonia.Value, err error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("qgraph: %v takes 1 input, got %d", op, len(vals))
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("qgraph: %v: %v", op, r)
		}
	}()
	ts, err := denseInputs(op, vals)
	if err != nil {
		return nil, err
	}
	x := ts[0]
	img := op.in
	if !op.back {
		img = x.Shape()
	}
	g := op.geom(img)
	shape := tensor.Shape{img[0], g.OH, g.OW, g.Rows()}
	if op.back {
		shape = img.Clone()
	}
	var out any
	switch d := x.Data().(type) {
	case []float32:
		out = im2colDo(op.back, d, img[0], g)
	case []float64:
		out = im2colDo(op.back, d, img[0], g)
	default:
		return nil, fmt.Errorf("qgraph: %v: dtype %v, want float32 or float64", op, x.Dtype())
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
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

// biasAddOp adds a bias to axis 1 of its first input (a layer's output,
// (B, C) or (B, C, H, W)): the bias, its second input, holds C values in
// any shape. Its gradient (back true: inputs the incoming gradient and the
// bias, for its shape) sums the incoming gradient over every axis but 1 in
// float64, in the order nn's layers sum their bias gradients.
type biasAddOp struct {
	back bool
}

func (op *biasAddOp) Arity() int { return 2 }

func (op *biasAddOp) Type() hm.Type {
	a, p := hm.TypeVariable('a'), otherTypeVar
	if op.back {
		return hm.NewFnType(a, p, p) // (gradient, bias): the bias gives the type
	}
	return hm.NewFnType(a, p, a)
}

func (op *biasAddOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("qgraph: %v takes %d inputs, got %d", op, op.Arity(), len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok || len(s) < 2 {
		return nil, fmt.Errorf("qgraph: %v: input shape %v, want (batch, channels, ...)", op, in[0])
	}
	bs, ok := in[1].(tensor.Shape)
	if op.back {
		return bs.Clone(), nil
	}
	if !ok || bs.TotalSize() != s[1] {
		return nil, fmt.Errorf("qgraph: %v: bias shape %v does not hold %d values", op, in[1], s[1])
	}
	return s.Clone(), nil
}

func (op *biasAddOp) ReturnsPtr() bool     { return false }
func (op *biasAddOp) CallsExtern() bool    { return false }
func (op *biasAddOp) OverwritesInput() int { return -1 }

func (op *biasAddOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "qgraph.biasadd{back=%v}", op.back)
}

func (op *biasAddOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *biasAddOp) String() string {
	if op.back {
		return "∂bias"
	}
	return "+bias"
}

func (op *biasAddOp) DiffWRT(inputs int) []bool {
	if op.back {
		return []bool{false, false}
	}
	return []bool{true, true}
}

func (op *biasAddOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.back {
		return nil, fmt.Errorf("qgraph: %v: no second derivatives", op)
	}
	db, err := gorgonia.ApplyOp(&biasAddOp{back: true}, grad, inputs[1])
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{grad, db}, nil
}

func (op *biasAddOp) Do(vals ...gorgonia.Value) (v gorgonia.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("qgraph: %v: %v", op, r)
		}
	}()
	ts, err := denseInputs(op, vals)
	if err != nil {
		return nil, err
	}
	s := ts[0].Shape()
	shape := s.Clone()
	if op.back {
		shape = ts[1].Shape().Clone()
	}
	var out any
	switch ts[0].Dtype() {
	case tensor.Float32:
		out = biasDo[float32](op.back, ts, s)
	case tensor.Float64:
		out = biasDo[float64](op.back, ts, s)
	default:
		return nil, fmt.Errorf("qgraph: %v: dtype %v, want float32 or float64", op, ts[0].Dtype())
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

func biasDo[T compute.Float](back bool, ts []*tensor.Dense, s tensor.Shape) []T {
	x := ts[0].Data().([]T)
	n, c := s[0], s[1]
	inner := s.TotalSize() / (n * c)
	if back {
		// As nn's sumRows: per channel, over the batch, then positions.
		db := make([]T, c)
		for j := range db {
			var sum float64
			for b := 0; b < n; b++ {
				for _, v := range x[(b*c+j)*inner : (b*c+j+1)*inner] {
					sum += float64(v)
				}
			}
			db[j] = T(sum)
		}
		return db
	}
	bias := ts[1].Data().([]T)
	y := make([]T, len(x))
	for i := 0; i < n*c; i++ {
		v := bias[i%c]
		for p := i * inner; p < (i+1)*inner; p++ {
			y[p] = x[p] + v
		}
	}
	return y
}
