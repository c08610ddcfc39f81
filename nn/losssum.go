package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// WeightedSum returns Σ ws[i]·losses[i] for scalar losses, summed in
// float64: a total loss such as CycleGAN's adversarial + 10·cycle +
// 5·identity. The gradient passed to loss i is ws[i] times the incoming
// one; loss scaling belongs to the terms (their gradScale).
func WeightedSum(ws []float64, losses ...*gorgonia.Node) (*gorgonia.Node, error) {
	if len(losses) == 0 || len(ws) != len(losses) {
		return nil, fmt.Errorf("nn: weighted sum: %d weights for %d losses", len(ws), len(losses))
	}
	in := make([]tensor.Shape, len(losses))
	for i, l := range losses {
		if l.Shape().TotalSize() != 1 {
			return nil, fmt.Errorf("nn: weighted sum: term %d has shape %v, want a scalar", i, l.Shape())
		}
		in[i] = l.Shape().Clone()
	}
	var fwd outBuf
	name := fmt.Sprintf("WeightedSum(%v)", ws)
	op := &diffOp{
		Func: funcOp{Name: name, In: in, Out: tensor.ScalarShape(), Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			var s float64
			for i, d := range in {
				if isF64(d) {
					s += float64(ws[i] * scalarOf[float64](d)) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
				} else {
					s += float64(ws[i] * float64(scalarOf[float32](d)))
				}
			}
			return scalarOut(&fwd, in[0].Dtype(), s), nil
		}},
		WRT: make([]bool, len(losses)),
	}
	for i := range op.WRT {
		op.WRT[i] = true
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		res := make(gorgonia.Nodes, len(inputs))
		for i := range inputs {
			w := ws[i]
			d, err := kernelNode(fmt.Sprintf("%s.d%d", name, i), in[i], []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				if isF64(out) {
					out.Set(0, w*scalarOf[float64](in[0]))
				} else {
					out.Set(0, float32(w*float64(scalarOf[float32](in[0]))))
				}
			})
			if err != nil {
				return nil, err
			}
			res[i] = d
		}
		return res, nil
	}
	return apply(newLossOp(op), losses...)
}
