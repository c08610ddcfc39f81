package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AddRowDot returns s + Σ_j h[:, j]·e[:, j]: the (B, 1) logits s plus the
// row-wise inner products of the (B, n) matrices h and e, each summed in
// float64. It is the projection term of a class-conditional discriminator
// (Miyato and Koyama, ICLR 2018), with e the embedding of each sample's
// class; in PyTorch, s + (h * e).sum(1, keepdim=True). The gradients are
// the output gradient for s, and g·e for h and g·h for e, with g the
// output gradient of the row.
func AddRowDot(s, h, e *gorgonia.Node) (*gorgonia.Node, error) {
	ss, hs, es := s.Shape(), h.Shape(), e.Shape()
	if ss.Dims() != 2 || ss[1] != 1 || !hs.Eq(es) || hs.Dims() != 2 || hs[0] != ss[0] {
		return nil, fmt.Errorf("nn: projection: shapes %v, %v, %v, want (B, 1), (B, n), (B, n)", ss, hs, es)
	}
	rows, n := hs[0], hs[1]
	shape := ss.Clone()
	var fwd outBuf
	name := fmt.Sprintf("AddRowDot(%d)", n)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{ss.Clone(), hs.Clone(), es.Clone()}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := fwd.Get(in[0].Dtype(), shape)
			if isF64(y) {
				addRowDot(data[float64](y), data[float64](in[0]), data[float64](in[1]), data[float64](in[2]), rows, n)
			} else {
				addRowDot(data[float32](y), data[float32](in[0]), data[float32](in[1]), data[float32](in[2]), rows, n)
			}
			return y, nil
		}},
		WRT: []bool{true, true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		ds, err := kernelNode(name+".ds", shape, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
			if isF64(out) {
				copy(data[float64](out), data[float64](in[0]))
			} else {
				copy(data[float32](out), data[float32](in[0]))
			}
		})
		if err != nil {
			return nil, err
		}
		// d/dh = g·e, d/de = g·h (g broadcast along the row).
		scaleRows := func(what string, other *gorgonia.Node) (*gorgonia.Node, error) {
			return kernelNode(name+"."+what, hs, []*gorgonia.Node{other, grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				if isF64(out) {
					mulRows(data[float64](out), data[float64](in[0]), data[float64](in[1]), rows, n)
				} else {
					mulRows(data[float32](out), data[float32](in[0]), data[float32](in[1]), rows, n)
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
