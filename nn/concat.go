package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/graphop"
)

// Concat joins a and b along axis 1: two matrices (B, n) and (B, m) into
// (B, n+m), or two images (B, C1, H, W) and (B, C2, H, W) into
// (B, C1+C2, H, W). It matches PyTorch's torch.cat([a, b], dim=1). The
// output is a copy of the inputs, into a buffer kept from run to run (in
// an inference program, a chain of them over one image shares an arena
// and copies nothing already in place: see placeLink); the gradient of
// each input is its slice of the output gradient. It does what
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
			switch {
			case isF64(y):
				compute.ConcatRows(data[float64](y), data[float64](in[0]), data[float64](in[1]), rows, n, m)
			case fwd.InArena():
				// What is already in place (an earlier link, the
				// op placed after it) is not copied.
				d := data[float32](y)
				copyUnlessSame(d[:n], data[float32](in[0]))
				copyUnlessSame(d[n:], data[float32](in[1]))
			default:
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
	if rows == 1 && a.Dtype() == tensor.Float32 && b.Dtype() == tensor.Float32 {
		placeLink(&fwd, a, b, n, m)
	}
	return apply(op, a, b)
}

// A chain of concatenations of one image, as a dense block builds
// ([x, x1], then [[x, x1], x2], …), copies the growing concatenation at
// every link: 2.6 GB a forward pass of ESRGAN's RRDBNet at 128×128, 12%
// of its time. With one image (batch 1: each input is one contiguous
// run), the links share an arena (graphop.Arena): each link's output is a
// prefix of the next one's, and the op feeding a link (the dense block's
// LeakyReLU) writes its output straight into its place there. A link then
// copies only what is not already in place (the block's input x). The
// arena is used only by an inference program (graphexec's Recycle), which
// lends it out as a whole; training graphs copy as before. Each node's
// output holds the same values either way, at another address.

// placeLink places the output of the concatenation of a (n values) and b
// (m values), whose buffer is out: after a in a's arena if a's output ends
// an arena not yet in use, else at the start of a new arena; and b's
// output after a's, if b's op has a buffer not yet placed.
func placeLink(out *outBuf, a, b *gorgonia.Node, n, m int) {
	var ar *graphop.Arena
	off := 0
	if ab := nodeBuf(a); ab != nil {
		if pa, poff, pn := ab.Placed(); pa != nil && pn == n && poff+pn == pa.Size() && !pa.Lent() {
			ar, off = pa, poff
		}
	}
	if ar == nil {
		ar = graphop.NewArena()
		off = ar.Grow(n)
	}
	bOff := ar.Grow(m)
	out.Place(ar, off, n+m)
	if bb := nodeBuf(b); bb != nil {
		if pa, _, _ := bb.Placed(); pa == nil {
			bb.Place(ar, bOff, m)
		}
	}
}

// nodeBuf returns the output buffer of a float32 node whose op is one of
// nn's with one (graphop.Func's Buf: the op's result is always in it), or
// nil.
func nodeBuf(x *gorgonia.Node) *outBuf {
	var f *funcOp
	switch op := x.Op().(type) {
	case *diffOp:
		f = &op.Func
	case *funcOp:
		f = op
	default:
		return nil
	}
	if f.Buf == nil || f.ScalarOut || x.Dtype() != tensor.Float32 || f.Out.TotalSize() != x.Shape().TotalSize() {
		return nil
	}
	return f.Buf
}

// copyUnlessSame copies src into dst unless they are the same memory.
func copyUnlessSame(dst, src []float32) {
	if len(dst) > 0 && len(src) > 0 && &dst[0] == &src[0] {
		return
	}
	copy(dst, src)
}
