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

// accumSpec is how a layer's three dot products accumulate: the forward
// one (result Out) and the two backward ones (results: the gradients of
// operands a and b). Each result format is where quire sums are rounded
// and per-op steps round to, unless the layer names an AccumFormat.
type accumSpec struct {
	accum       quant.Accumulation
	out, ga, gb quant.Format
}

func newAccumSpec(lf nn.LayerFormats, ra, rb Operand) accumSpec {
	grad := func(r Operand) quant.Format {
		if r == Weight {
			return lf.WGrad
		}
		return lf.Err
	}
	s := accumSpec{accum: lf.Accum, out: lf.Out, ga: grad(ra), gb: grad(rb)}
	if lf.AccumFormat != nil {
		s.out, s.ga, s.gb = lf.AccumFormat, lf.AccumFormat, lf.AccumFormat
	}
	return s
}

// accumMatMul returns op(a)·op(b) for matrices a and b, accumulated as s
// says (quire or per-op).
func accumMatMul(s accumSpec, a, b *gorgonia.Node, tA, tB bool) (*gorgonia.Node, error) {
	if !a.IsMatrix() || !b.IsMatrix() {
		return nil, fmt.Errorf("%v accumulation: want two matrices, got shapes %v and %v", s.accum, a.Shape(), b.Shape())
	}
	return gorgonia.ApplyOp(&accumMatMulOp{accum: s.accum, f: s.out, fa: s.ga, fb: s.gb, tA: tA, tB: tB}, a, b)
}

// accumMatMulOp is a matrix multiply with quire or per-op accumulation,
// computed by the reference kernels of internal/gemm. Its gradients are
// matrix multiplies of the same kind, rounded to fa and fb.
type accumMatMulOp struct {
	accum     quant.Accumulation
	f, fa, fb quant.Format
	tA, tB    bool
}

func (op *accumMatMulOp) Arity() int { return 2 }

func (op *accumMatMulOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a, a)
}

func (op *accumMatMulOp) dims(sa, sb tensor.Shape) (m, n, k int, err error) {
	return matMulDims(op, op.tA, op.tB, sa, sb)
}

func (op *accumMatMulOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("qgraph: %v takes 2 inputs, got %d", op, len(in))
	}
	sa, ok1 := in[0].(tensor.Shape)
	sb, ok2 := in[1].(tensor.Shape)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("qgraph: %v: inputs are not shapes", op)
	}
	m, n, _, err := op.dims(sa, sb)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{m, n}, nil
}

func (op *accumMatMulOp) ReturnsPtr() bool     { return false }
func (op *accumMatMulOp) CallsExtern() bool    { return false }
func (op *accumMatMulOp) OverwritesInput() int { return -1 }

func (op *accumMatMulOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "qgraph.matmul{accum=%v,f=%s,fa=%s,fb=%s,tA=%v,tB=%v}",
		op.accum, fmtName(op.f), fmtName(op.fa), fmtName(op.fb), op.tA, op.tB)
}

func (op *accumMatMulOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *accumMatMulOp) String() string {
	t := func(b bool) string {
		if b {
			return "ᵀ"
		}
		return ""
	}
	return fmt.Sprintf("A%s ×[%v→%s] B%s", t(op.tA), op.accum, fmtName(op.f), t(op.tB))
}

func (op *accumMatMulOp) DiffWRT(inputs int) []bool { return []bool{true, true} }

// SymDiff: for C = A'·B' with A' = op(A), B' = op(B) and upstream G,
// dA' = G·B'ᵀ and dB' = A'ᵀ·G; a transposed operand takes the transpose.
func (op *accumMatMulOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("qgraph: %v: %d inputs", op, len(inputs))
	}
	a, b := inputs[0], inputs[1]
	mm := func(f quant.Format, x, y *gorgonia.Node, tx, ty bool) (*gorgonia.Node, error) {
		return gorgonia.ApplyOp(&accumMatMulOp{accum: op.accum, f: f, tA: tx, tB: ty}, x, y)
	}
	var da, db *gorgonia.Node
	var err error
	if op.tA {
		da, err = mm(op.fa, b, grad, op.tB, true) // (G·B'ᵀ)ᵀ = B'·Gᵀ
	} else {
		da, err = mm(op.fa, grad, b, false, !op.tB)
	}
	if err != nil {
		return nil, err
	}
	if op.tB {
		db, err = mm(op.fb, grad, a, true, op.tA) // (A'ᵀ·G)ᵀ = Gᵀ·A'
	} else {
		db, err = mm(op.fb, a, grad, !op.tA, false)
	}
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{da, db}, nil
}

func (op *accumMatMulOp) Do(vals ...gorgonia.Value) (v gorgonia.Value, err error) {
	if len(vals) != 2 {
		return nil, fmt.Errorf("qgraph: %v takes 2 inputs, got %d", op, len(vals))
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("qgraph: %v: %v", op, r)
		}
	}()
	a, ok1 := vals[0].(*tensor.Dense)
	b, ok2 := vals[1].(*tensor.Dense)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("qgraph: %v: inputs %T, %T, want tensors", op, vals[0], vals[1])
	}
	if a.RequiresIterator() {
		a = a.Materialize().(*tensor.Dense)
	}
	if b.RequiresIterator() {
		b = b.Materialize().(*tensor.Dense)
	}
	m, n, k, err := op.dims(a.Shape(), b.Shape())
	if err != nil {
		return nil, err
	}
	lda, ldb := a.Shape()[1], b.Shape()[1]
	switch ad := a.Data().(type) {
	case []float32:
		bd, ok := b.Data().([]float32)
		if !ok {
			return nil, fmt.Errorf("qgraph: %v: mixed dtypes", op)
		}
		c := make([]float32, m*n)
		matmul(op, m, n, k, ad, lda, bd, ldb, c)
		return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(c)), nil
	case []float64:
		bd, ok := b.Data().([]float64)
		if !ok {
			return nil, fmt.Errorf("qgraph: %v: mixed dtypes", op)
		}
		c := make([]float64, m*n)
		matmul(op, m, n, k, ad, lda, bd, ldb, c)
		return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(c)), nil
	}
	return nil, fmt.Errorf("qgraph: %v: dtype %v, want float32 or float64", op, a.Dtype())
}

func matmul[T compute.Float](op *accumMatMulOp, m, n, k int, a []T, lda int, b []T, ldb int, c []T) {
	if op.accum == quant.AccumQuire {
		compute.QuireGemm(nil, op.f, op.tA, op.tB, m, n, k, a, lda, b, ldb, c, n)
	} else {
		compute.PerOpGemm(nil, op.f, op.tA, op.tB, m, n, k, a, lda, b, ldb, c, n)
	}
}
