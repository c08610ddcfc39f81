package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// Concat joins a and b along axis 1: two matrices (B, n) and (B, m) into
// (B, n+m), or two images (B, C1, H, W) and (B, C2, H, W) into
// (B, C1+C2, H, W). It matches PyTorch's torch.cat([a, b], dim=1). The
// output is a copy of the inputs, into a buffer kept from run to run; the
// gradient of each input is its slice of the output gradient. It does what
// gorgonia.Concat(1, a, b) does without allocating its result on every
// run.
func Concat(a, b *gorgonia.Node) (*gorgonia.Node, error) {
	as, bs := a.Shape(), b.Shape()
	ok := as.Dims() == bs.Dims() && (as.Dims() == 2 || as.Dims() == 4) && as[0] == bs[0]
	for i := 2; ok && i < as.Dims(); i++ {
		ok = as[i] == bs[i]
	}
	if !ok {
		return nil, fmt.Errorf("nn: concat: shapes %v and %v, want (B, n) and (B, m), or (B, C1, H, W) and (B, C2, H, W)", as, bs)
	}
	// Each of the B rows of the result is a row of a (n values) followed
	// by a row of b (m values).
	rows, n, m := as[0], as[1:].TotalSize(), bs[1:].TotalSize()
	shape := as.Clone()
	shape[1] += bs[1]
	var fwd outBuf
	name := fmt.Sprintf("Concat(%v,%v)", as, bs)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{as.Clone(), bs.Clone()}, Out: shape, Buf: &fwd, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := fwd.Get(in[0].Dtype(), shape)
			if isF64(y) {
				compute.ConcatRows(data[float64](y), data[float64](in[0]), data[float64](in[1]), rows, n, m)
			} else {
				compute.ConcatRows(data[float32](y), data[float32](in[0]), data[float32](in[1]), rows, n, m)
			}
			return y, nil
		}},
		WRT: []bool{true, true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		part := func(what string, s tensor.Shape, off, w int) (*gorgonia.Node, error) {
			return kernelNode(name+"."+what, s, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
				if isF64(out) {
					compute.SliceRows(data[float64](out), data[float64](in[0]), rows, n+m, off, w)
				} else {
					compute.SliceRows(data[float32](out), data[float32](in[0]), rows, n+m, off, w)
				}
			})
		}
		da, err := part("da", as, 0, n)
		if err != nil {
			return nil, err
		}
		db, err := part("db", bs, n, m)
		return gorgonia.Nodes{da, db}, err
	}
	return apply(op, a, b)
}
