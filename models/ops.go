package models

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The element-wise and shape ops below replace Gorgonia's so that the
// whole graph is made of ops the project has gradient-checked and that
// reuse their buffers from run to run. All work on float32 and float64.

// actKind is an element-wise activation.
type actKind uint8

const (
	actLeakyReLU actKind = iota // x for x > 0, alpha·x otherwise
	actReLU
	actTanh
)

func (k actKind) String() string {
	return [...]string{"LeakyReLU", "ReLU", "Tanh"}[k]
}

// activation returns f(x) for the activation kind.
func activation(x *gorgonia.Node, kind actKind, alpha float64) (*gorgonia.Node, error) {
	shape := x.Shape().Clone()
	var fwd outBuf
	name := fmt.Sprintf("%v(%g)", kind, alpha)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{shape}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := fwd.Get(in[0].Dtype(), shape)
			switch x := in[0].Data().(type) {
			case []float32:
				actForward(y.Data().([]float32), x, kind, float32(alpha))
			case []float64:
				actForward(y.Data().([]float64), x, kind, alpha)
			}
			return y, nil
		}},
		WRT: []bool{true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		dx, err := backNode(name+".dx", shape, []*gorgonia.Node{inputs[0], output, grad}, func(out *tensor.Dense, in []*tensor.Dense) {
			switch dst := out.Data().(type) {
			case []float32:
				actBackward(dst, in[0].Data().([]float32), in[1].Data().([]float32), in[2].Data().([]float32), kind, float32(alpha))
			case []float64:
				actBackward(dst, in[0].Data().([]float64), in[1].Data().([]float64), in[2].Data().([]float64), kind, alpha)
			}
		})
		return gorgonia.Nodes{dx}, err
	}
	return apply(op, x)
}

// LeakyReLU returns max(x, alpha·x) for 0 <= alpha < 1.
func LeakyReLU(x *gorgonia.Node, alpha float64) (*gorgonia.Node, error) {
	return activation(x, actLeakyReLU, alpha)
}

// ReLU returns max(x, 0).
func ReLU(x *gorgonia.Node) (*gorgonia.Node, error) { return activation(x, actReLU, 0) }

// Tanh returns tanh(x).
func Tanh(x *gorgonia.Node) (*gorgonia.Node, error) { return activation(x, actTanh, 0) }

// ConcatCols returns [a b]: the (B, n) and (B, m) matrices side by side,
// (B, n+m).
func ConcatCols(a, b *gorgonia.Node) (*gorgonia.Node, error) {
	as, bs := a.Shape(), b.Shape()
	if as.Dims() != 2 || bs.Dims() != 2 || as[0] != bs[0] {
		return nil, fmt.Errorf("models: concat: shapes %v and %v, want (B, n) and (B, m)", as, bs)
	}
	rows, n, m := as[0], as[1], bs[1]
	shape := tensor.Shape{rows, n + m}
	var fwd outBuf
	name := fmt.Sprintf("ConcatCols(%d,%d)", n, m)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{as.Clone(), bs.Clone()}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := fwd.Get(in[0].Dtype(), shape)
			switch dst := y.Data().(type) {
			case []float32:
				concatCols(dst, in[0].Data().([]float32), in[1].Data().([]float32), rows, n, m)
			case []float64:
				concatCols(dst, in[0].Data().([]float64), in[1].Data().([]float64), rows, n, m)
			}
			return y, nil
		}},
		WRT: []bool{true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		part := func(what string, off, w int) (*gorgonia.Node, error) {
			return backNode(name+"."+what, tensor.Shape{rows, w}, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				switch dst := out.Data().(type) {
				case []float32:
					sliceCols(dst, in[0].Data().([]float32), rows, n+m, off, w)
				case []float64:
					sliceCols(dst, in[0].Data().([]float64), rows, n+m, off, w)
				}
			})
		}
		da, err := part("da", 0, n)
		if err != nil {
			return nil, err
		}
		db, err := part("db", n, m)
		return gorgonia.Nodes{da, db}, err
	}
	return apply(op, a, b)
}

// SoftplusMean returns the scalar mean over all elements of
// softplus(sign·x) = log(1 + exp(sign·x)), computed without overflow for
// any x. With x the discriminator's logits it is the binary cross-entropy
// of the non-saturating GAN loss: sign -1 for "real" targets, +1 for
// "fake". The gradient passed back is multiplied by *gradScale (loss
// scaling), read at every run; gradScale nil means 1.
func SoftplusMean(x *gorgonia.Node, sign float64, gradScale *float64) (*gorgonia.Node, error) {
	return SoftplusLoss(gradScale, []*gorgonia.Node{x}, []float64{sign})
}

// SoftplusLoss returns Σ_i SoftplusMean(xs[i], signs[i]) as one scalar
// node: the discriminator's loss softplus(-D(x)) + softplus(D(G(z))) is
// SoftplusLoss(s, {real, fake}, {-1, +1}).
func SoftplusLoss(gradScale *float64, xs []*gorgonia.Node, signs []float64) (*gorgonia.Node, error) {
	if len(xs) == 0 || len(xs) != len(signs) {
		return nil, fmt.Errorf("models: softplus loss: %d inputs and %d signs", len(xs), len(signs))
	}
	in := make([]tensor.Shape, len(xs))
	for i, x := range xs {
		if signs[i] != 1 && signs[i] != -1 {
			return nil, fmt.Errorf("models: softplus loss: sign %v, want ±1", signs[i])
		}
		in[i] = x.Shape().Clone()
	}
	name := fmt.Sprintf("SoftplusLoss(%v, %p)", signs, gradScale)
	op := &diffOp{
		Func: funcOp{Name: name, In: in, Out: tensor.ScalarShape(), Fn: func(ins []*tensor.Dense) (*tensor.Dense, error) {
			var total float64
			f32 := false
			for i, d := range ins {
				var s float64
				switch x := d.Data().(type) {
				case []float32:
					f32 = true
					for _, v := range x {
						s += softplus(signs[i] * float64(v))
					}
				case []float64:
					for _, v := range x {
						s += softplus(signs[i] * v)
					}
				}
				total += s / float64(d.Size())
			}
			if f32 {
				return tensor.New(tensor.FromScalar(float32(total))), nil
			}
			return tensor.New(tensor.FromScalar(total)), nil
		}},
		WRT: make([]bool, len(xs)),
	}
	for i := range op.WRT {
		op.WRT[i] = true
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		res := make(gorgonia.Nodes, len(inputs))
		for i, x := range inputs {
			sign, n := signs[i], float64(in[i].TotalSize())
			dx, err := backNode(fmt.Sprintf("%s.d%d", name, i), in[i], []*gorgonia.Node{x, grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				k := sign / n
				if gradScale != nil {
					k *= *gradScale
				}
				switch dst := out.Data().(type) {
				case []float32:
					k *= float64(scalar[float32](in[1]))
					for i, v := range in[0].Data().([]float32) {
						dst[i] = float32(k * sigmoid(sign*float64(v)))
					}
				case []float64:
					k *= scalar[float64](in[1])
					for i, v := range in[0].Data().([]float64) {
						dst[i] = k * sigmoid(sign*v)
					}
				}
			})
			if err != nil {
				return nil, err
			}
			res[i] = dx
		}
		return res, nil
	}
	return apply(op, xs...)
}

func scalar[T float](d *tensor.Dense) T {
	if d.IsScalar() {
		return d.ScalarValue().(T)
	}
	return d.Data().([]T)[0]
}

// softplus returns log(1+exp(x)) = max(x,0) + log1p(exp(-|x|)), exact to
// rounding for every finite x.
func softplus(x float64) float64 {
	return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
}

// sigmoid returns 1/(1+exp(-x)) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// watchGrad returns x unchanged; in the backward pass it passes the
// gradient through and shows it to f first.
func watchGrad(x *gorgonia.Node, f func(dy []float32)) (*gorgonia.Node, error) {
	shape := x.Shape().Clone()
	st := new(outBuf)
	name := fmt.Sprintf("WatchGrad(%p)", st)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{shape}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := st.Get(in[0].Dtype(), shape)
			copy(y.Data().([]float32), in[0].Data().([]float32))
			return y, nil
		}},
		WRT: []bool{true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		dx, err := backNode(name+".dx", shape, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
			dy := in[0].Data().([]float32)
			f(dy)
			copy(out.Data().([]float32), dy)
		})
		return gorgonia.Nodes{dx}, err
	}
	return apply(op, x)
}

// AddRowDot returns s + Σ_j h[:, j]·e[:, j]: the (B, 1) logits s plus the
// row-wise inner products of the (B, n) matrices h and e. It is the
// projection term of a class-conditional discriminator (Miyato and
// Koyama, ICLR 2018), with e the embedding of each sample's class.
func AddRowDot(s, h, e *gorgonia.Node) (*gorgonia.Node, error) {
	ss, hs, es := s.Shape(), h.Shape(), e.Shape()
	if ss.Dims() != 2 || ss[1] != 1 || !hs.Eq(es) || hs.Dims() != 2 || hs[0] != ss[0] {
		return nil, fmt.Errorf("models: projection: shapes %v, %v, %v, want (B, 1), (B, n), (B, n)", ss, hs, es)
	}
	rows, n := hs[0], hs[1]
	shape := ss.Clone()
	var fwd outBuf
	name := fmt.Sprintf("AddRowDot(%d)", n)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{ss.Clone(), hs.Clone(), es.Clone()}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := fwd.Get(in[0].Dtype(), shape)
			switch dst := y.Data().(type) {
			case []float32:
				addRowDot(dst, in[0].Data().([]float32), in[1].Data().([]float32), in[2].Data().([]float32), rows, n)
			case []float64:
				addRowDot(dst, in[0].Data().([]float64), in[1].Data().([]float64), in[2].Data().([]float64), rows, n)
			}
			return y, nil
		}},
		WRT: []bool{true, true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		ds, err := backNode(name+".ds", shape, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
			switch dst := out.Data().(type) {
			case []float32:
				copy(dst, in[0].Data().([]float32))
			case []float64:
				copy(dst, in[0].Data().([]float64))
			}
		})
		if err != nil {
			return nil, err
		}
		// d/dh = g·e, d/de = g·h (g broadcast along the row).
		scaleRows := func(what string, other *gorgonia.Node) (*gorgonia.Node, error) {
			return backNode(name+"."+what, hs, []*gorgonia.Node{other, grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				switch dst := out.Data().(type) {
				case []float32:
					mulRows(dst, in[0].Data().([]float32), in[1].Data().([]float32), rows, n)
				case []float64:
					mulRows(dst, in[0].Data().([]float64), in[1].Data().([]float64), rows, n)
				}
			})
		}
		dh, err := scaleRows("dh", inputs[2])
		if err != nil {
			return nil, err
		}
		de, err := scaleRows("de", inputs[1])
		return gorgonia.Nodes{ds, dh, de}, err
	}
	return apply(op, s, h, e)
}
