package featnet

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphop"
)

// softmaxXent returns the per-sample cross-entropy, shape (batch), of the
// softmax of logits (batch, K) against target distributions (batch, K):
// logsumexp(z) - Σ t·z, computed with the largest logit subtracted so
// that it neither overflows nor loses the small terms. Its gradient with
// respect to the logits is (softmax(z)·Σt - t)·dy, multiplied by *scale
// (loss scaling; the forward value is not scaled). The targets are not
// differentiated.
func softmaxXent(logits, target *gorgonia.Node, scale *float64) (*gorgonia.Node, error) {
	ls, ts := logits.Shape(), target.Shape()
	if ls.Dims() != 2 || !ls.Eq(ts) {
		return nil, fmt.Errorf("featnet: cross-entropy of logits %v against targets %v: want equal (batch, classes) shapes", ls, ts)
	}
	n, k := ls[0], ls[1]
	m := tensor.Shape{n, k}
	var fwd, bwd graphop.OutBuf
	op := &graphop.Diff{
		Func: graphop.Func{
			// The scale's address is part of the name: two losses with
			// different scales must not be merged.
			Name: fmt.Sprintf("SoftmaxXent(%dx%d,%p)", n, k, scale),
			In:   []tensor.Shape{m, m},
			Out:  tensor.Shape{n},
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				z, t := in[0], in[1]
				y := fwd.Get(z.Dtype(), tensor.Shape{n})
				if z.Dtype() == tensor.Float64 {
					xentForward(y.Float64s(), z.Float64s(), t.Float64s(), k)
				} else {
					xentForward(y.Float32s(), z.Float32s(), t.Float32s(), k)
				}
				return y, nil
			},
		},
		WRT: []bool{true, false},
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		g := &graphop.Func{
			Name: op.Name + ".grad",
			In:   []tensor.Shape{m, m, {n}},
			Out:  m,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				z, t, dy := in[0], in[1], in[2]
				dz := bwd.Get(z.Dtype(), m)
				s := 1.0
				if scale != nil {
					s = *scale
				}
				if z.Dtype() == tensor.Float64 {
					xentBackward(dz.Float64s(), z.Float64s(), t.Float64s(), dy.Float64s(), k, s)
				} else {
					xentBackward(dz.Float32s(), z.Float32s(), t.Float32s(), dy.Float32s(), k, float32(s))
				}
				return dz, nil
			},
		}
		dz, err := gorgonia.ApplyOp(g, inputs[0], inputs[1], grad)
		if err != nil {
			return nil, fmt.Errorf("featnet: %v: %w", g, err)
		}
		return gorgonia.Nodes{dz, nil}, nil
	}
	y, err := gorgonia.ApplyOp(op, logits, target)
	if err != nil {
		return nil, fmt.Errorf("featnet: %v: %w", op, err)
	}
	return y, nil
}
