package qgraph

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/graphop"
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
			return lf.WGrad.Format
		}
		return lf.Err.Format
	}
	s := accumSpec{accum: lf.Accum, out: lf.Out.Format, ga: grad(ra), gb: grad(rb)}
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
	op, err := newAccumMatMulOp(s.accum, s.out, s.ga, s.gb, a.Shape(), b.Shape(), tA, tB)
	if err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(op, a, b)
}

// accumMatMulOp is a matrix multiply with quire or per-op accumulation,
// computed by the reference kernels of internal/gemm and rounded to f.
// Its gradients are matrix multiplies of the same kind, rounded to fa and
// fb. The op is a graphop.Diff; accum is kept for inspection.
type accumMatMulOp struct {
	graphop.Diff
	accum quant.Accumulation
}

func newAccumMatMulOp(accum quant.Accumulation, f, fa, fb quant.Format, sa, sb tensor.Shape, tA, tB bool) (*accumMatMulOp, error) {
	t := func(b bool) string {
		if b {
			return "ᵀ"
		}
		return ""
	}
	// The name holds every parameter: the gradient formats change the
	// gradients.
	name := fmt.Sprintf("A%s ×[%v→%s, ∂A→%s, ∂B→%s] B%s", t(tA), accum, fmtName(f), fmtName(fa), fmtName(fb), t(tB))
	m, n, k, err := matMulDims(name, tA, tB, sa, sb)
	if err != nil {
		return nil, err
	}
	op := &accumMatMulOp{accum: accum}
	op.Diff = graphop.Diff{
		Func: graphop.Func{
			Name: name,
			In:   []tensor.Shape{sa.Clone(), sb.Clone()},
			Out:  tensor.Shape{m, n},
			Fn: recovered(name, func(in []*tensor.Dense) (*tensor.Dense, error) {
				a, b := in[0], in[1]
				lda, ldb := sa[1], sb[1]
				if a.Dtype() == tensor.Float32 {
					c := make([]float32, m*n)
					accumGemm(accum, f, tA, tB, m, n, k, a.Float32s(), lda, b.Float32s(), ldb, c)
					return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(c)), nil
				}
				c := make([]float64, m*n)
				accumGemm(accum, f, tA, tB, m, n, k, a.Float64s(), lda, b.Float64s(), ldb, c)
				return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(c)), nil
			}),
			CopyViews: true,
		},
		WRT: []bool{true, true},
	}
	// For C = A'·B' with A' = op(A), B' = op(B) and upstream G,
	// dA' = G·B'ᵀ and dB' = A'ᵀ·G; a transposed operand takes the
	// transpose.
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		a, b := inputs[0], inputs[1]
		mm := func(f quant.Format, x, y *gorgonia.Node, tx, ty bool) (*gorgonia.Node, error) {
			d, err := newAccumMatMulOp(accum, f, nil, nil, x.Shape(), y.Shape(), tx, ty)
			if err != nil {
				return nil, err
			}
			return gorgonia.ApplyOp(d, x, y)
		}
		var da, db *gorgonia.Node
		var err error
		if tA {
			da, err = mm(fa, b, grad, tB, true) // (G·B'ᵀ)ᵀ = B'·Gᵀ
		} else {
			da, err = mm(fa, grad, b, false, !tB)
		}
		if err != nil {
			return nil, err
		}
		if tB {
			db, err = mm(fb, grad, a, true, tA) // (A'ᵀ·G)ᵀ = Gᵀ·A'
		} else {
			db, err = mm(fb, a, grad, !tA, false)
		}
		if err != nil {
			return nil, err
		}
		return gorgonia.Nodes{da, db}, nil
	}
	return op, nil
}

// accumGemm sets c (m×n) to op(a)·op(b), accumulated in a quire or
// rounded to f at every step.
func accumGemm[T compute.Float](accum quant.Accumulation, f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T) {
	if accum == quant.AccumQuire {
		compute.QuireGemm(nil, f, tA, tB, m, n, k, a, lda, b, ldb, c, n)
	} else {
		compute.PerOpGemm(nil, f, tA, tB, m, n, k, a, lda, b, ldb, c, n)
	}
}

// recovered returns fn with a panic in the kernels it calls turned into
// an error naming the op.
func recovered(name string, fn func([]*tensor.Dense) (*tensor.Dense, error)) func([]*tensor.Dense) (*tensor.Dense, error) {
	return func(in []*tensor.Dense) (y *tensor.Dense, err error) {
		defer func() {
			if r := recover(); r != nil {
				y, err = nil, fmt.Errorf("qgraph: %s: %v", name, r)
			}
		}()
		return fn(in)
	}
}
