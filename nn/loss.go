package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The losses below return a scalar node, float32 for float32 inputs and
// float64 for float64, the mean over all elements (PyTorch's default
// reduction), summed in float64. Each takes gradScale for loss scaling:
// the gradient it passes back is multiplied by *gradScale, read at every
// run; nil means 1. The gradient is computed in float64 and rounded once
// to the element type. Where the inputs of a loss are in different known
// formats (see FormatOf), the loss and its gradient are rounded to their
// promotion (quant.Promote), as a residual sum's.

// L1Loss returns mean |x - y| over the elements of x and y (same shape),
// as PyTorch's nn.L1Loss. The gradient is sign(x - y)/n for x and its
// negation for y, 0 where x == y (as PyTorch).
func L1Loss(x, y *gorgonia.Node, gradScale *float64) (*gorgonia.Node, error) {
	return pairLoss(lossL1, x, y, 0, gradScale)
}

// MSELoss returns mean (x - y)² over the elements of x and y (same
// shape), as PyTorch's nn.MSELoss. The gradient is 2(x - y)/n for x and
// its negation for y.
func MSELoss(x, y *gorgonia.Node, gradScale *float64) (*gorgonia.Node, error) {
	return pairLoss(lossMSE, x, y, 0, gradScale)
}

// MSETarget returns mean (x - c)² over the elements of x for the constant
// c = target, as nn.MSELoss against a tensor filled with target: the
// least-squares GAN losses (target 1 for "real", 0 for "fake"). The
// gradient is 2(x - c)/n. With float32 data c is float32(target).
func MSETarget(x *gorgonia.Node, target float64, gradScale *float64) (*gorgonia.Node, error) {
	return pairLoss(lossMSE, x, nil, target, gradScale)
}

// lossKind is the element-wise function f(d) of d = x - y a loss averages.
type lossKind uint8

const (
	lossL1  lossKind = iota // |d|
	lossMSE                 // d²
)

func (k lossKind) String() string { return [...]string{"L1Loss", "MSELoss"}[k] }

// pairLoss returns mean f(x - y), or mean f(x - c) when y is nil.
func pairLoss(kind lossKind, x, y *gorgonia.Node, c float64, gradScale *float64) (*gorgonia.Node, error) {
	xs := x.Shape().Clone()
	ins := []*gorgonia.Node{x}
	name := fmt.Sprintf("%v(%v, %p)", kind, xs, gradScale)
	if y != nil {
		if ys := y.Shape(); !ys.Eq(xs) {
			return nil, fmt.Errorf("nn: %s: shapes %v and %v differ", kind, xs, ys)
		}
		ins = append(ins, y)
	} else {
		name = fmt.Sprintf("%v(%v, target %v, %p)", kind, xs, c, gradScale)
	}
	shapes := make([]tensor.Shape, len(ins))
	for i := range shapes {
		shapes[i] = xs
	}
	n := float64(xs.TotalSize())
	// in[1] of the kernels below is y, or nil.
	other := func(in []*tensor.Dense) *tensor.Dense {
		if y == nil {
			return nil
		}
		return in[1]
	}
	var fwd outBuf
	op := &diffOp{
		Func: funcOp{Name: name, In: shapes, Out: tensor.ScalarShape(), Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			var s float64
			if isF64(in[0]) {
				s = lossSum(kind, data[float64](in[0]), optData[float64](other(in)), c)
			} else {
				s = lossSum(kind, data[float32](in[0]), optData[float32](other(in)), float32(c))
			}
			return scalarOut(&fwd, in[0].Dtype(), s/n), nil
		}},
		WRT: make([]bool, len(ins)),
	}
	for i := range op.WRT {
		op.WRT[i] = true
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		res := make(gorgonia.Nodes, len(inputs))
		for i := range inputs {
			dir := 1.0 - 2*float64(i) // d/dy = -d/dx
			deps := append(append([]*gorgonia.Node(nil), inputs...), grad)
			d, err := kernelNode(fmt.Sprintf("%s.d%d", name, i), xs, deps, func(out *tensor.Dense, in []*tensor.Dense) {
				k := dir / n
				if kind == lossMSE {
					k *= 2
				}
				if gradScale != nil {
					k *= *gradScale
				}
				g := in[len(in)-1]
				if isF64(out) {
					k *= scalarOf[float64](g)
					lossGrad(kind, data[float64](out), data[float64](in[0]), optData[float64](other(in)), c, k)
				} else {
					k *= float64(scalarOf[float32](g))
					lossGrad(kind, data[float32](out), data[float32](in[0]), optData[float32](other(in)), float32(c), k)
				}
			})
			if err != nil {
				return nil, err
			}
			res[i] = d
		}
		return res, nil
	}
	loss, err := apply(newLossOp(op), ins...)
	if err != nil {
		return nil, err
	}
	return promoteLoss(kind.String(), loss, ins...)
}

// SoftplusMean returns the scalar mean over all elements of
// softplus(sign·x) = log(1 + exp(sign·x)), computed without overflow for
// any x. With x the discriminator's logits it is the binary cross-entropy
// of the non-saturating GAN loss, PyTorch's nn.BCEWithLogitsLoss: sign -1
// for "real" targets, +1 for "fake". The gradient passed back is
// multiplied by *gradScale (loss scaling), read at every run; gradScale
// nil means 1. It does what gorgonia.Softplus followed by Mean does, in
// one node summing in float64 and exact to rounding for every x
// (Gorgonia's softplus returns x for x > 16).
func SoftplusMean(x *gorgonia.Node, sign float64, gradScale *float64) (*gorgonia.Node, error) {
	return SoftplusLoss(gradScale, []*gorgonia.Node{x}, []float64{sign})
}

// SoftplusLoss returns Σ_i SoftplusMean(xs[i], signs[i]) as one scalar
// node: the discriminator's loss softplus(-D(x)) + softplus(D(G(z))) is
// SoftplusLoss(s, {real, fake}, {-1, +1}). Each mean is summed in
// float64; the gradient of xs[i] is signs[i]·sigmoid(signs[i]·x)/n_i.
func SoftplusLoss(gradScale *float64, xs []*gorgonia.Node, signs []float64) (*gorgonia.Node, error) {
	if len(xs) == 0 || len(xs) != len(signs) {
		return nil, fmt.Errorf("nn: softplus loss: %d inputs and %d signs", len(xs), len(signs))
	}
	in := make([]tensor.Shape, len(xs))
	for i, x := range xs {
		if signs[i] != 1 && signs[i] != -1 {
			return nil, fmt.Errorf("nn: softplus loss: sign %v, want ±1", signs[i])
		}
		in[i] = x.Shape().Clone()
	}
	name := fmt.Sprintf("SoftplusLoss(%v, %p)", signs, gradScale)
	var fwd outBuf
	op := &diffOp{
		Func: funcOp{Name: name, In: in, Out: tensor.ScalarShape(), Fn: func(ins []*tensor.Dense) (*tensor.Dense, error) {
			var total float64
			for i, d := range ins {
				var s float64
				if isF64(d) {
					s = softplusSum(data[float64](d), signs[i])
				} else {
					s = softplusSum(data[float32](d), signs[i])
				}
				total += s / float64(d.Size())
			}
			return scalarOut(&fwd, ins[0].Dtype(), total), nil
		}},
		WRT: make([]bool, len(xs)),
	}
	for i := range op.WRT {
		op.WRT[i] = true
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		res := make(gorgonia.Nodes, len(inputs))
		for i, x := range inputs {
			sign, n := signs[i], float64(in[i].TotalSize())
			dx, err := kernelNode(fmt.Sprintf("%s.d%d", name, i), in[i], []*gorgonia.Node{x, grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				k := sign / n
				if gradScale != nil {
					k *= *gradScale
				}
				if isF64(out) {
					k *= scalarOf[float64](in[1])
					softplusGrad(data[float64](out), data[float64](in[0]), sign, k)
				} else {
					k *= float64(scalarOf[float32](in[1]))
					softplusGrad(data[float32](out), data[float32](in[0]), sign, k)
				}
			})
			if err != nil {
				return nil, err
			}
			res[i] = dx
		}
		return res, nil
	}
	loss, err := apply(newLossOp(op), xs...)
	if err != nil {
		return nil, err
	}
	return promoteLoss("SoftplusLoss", loss, xs...)
}

// newLossOp makes op a loss: its value is a Gorgonia scalar
// (*gorgonia.F32 or *gorgonia.F64) rather than a 0-dimensional tensor, as
// Gorgonia's scalar-scalar ops (gorgonia.Add and Mul of two losses, a loss
// and a constant) accept only those.
func newLossOp(op *diffOp) *diffOp {
	op.ScalarOut = true
	return op
}

// scalarOut returns v as a scalar of element type dt, in buf.
func scalarOut(buf *outBuf, dt tensor.Dtype, v float64) *tensor.Dense {
	y := buf.Get(dt, tensor.ScalarShape())
	// The typed slices, not Set: Set boxes its value, an allocation.
	if dt == tensor.Float64 {
		y.Float64s()[0] = v
	} else {
		y.Float32s()[0] = float32(v)
	}
	return y
}

// scalarOf returns the value of a scalar or one-element tensor.
func scalarOf[T float32 | float64](d *tensor.Dense) T {
	if d.IsScalar() {
		return d.ScalarValue().(T)
	}
	return d.Data().([]T)[0]
}

// optData is data[T](d), or nil for a nil d.
func optData[T float32 | float64](d *tensor.Dense) []T {
	if d == nil {
		return nil
	}
	return data[T](d)
}
