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
	var slot *catSlot // float32 output in an arena shared along a chain (catPlace)
	name := fmt.Sprintf("Concat(%v,%v)", as, bs)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{as.Clone(), bs.Clone()}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			if slot != nil && !isF64(in[0]) {
				y := slot.get(shape)
				d := data[float32](y)
				copyUnlessSame(d[:n], data[float32](in[0]))
				copyUnlessSame(d[n:], data[float32](in[1]))
				return y, nil
			}
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
	if rows == 1 && a.Dtype() == tensor.Float32 && b.Dtype() == tensor.Float32 {
		slot = catPlace(op, a, b, n, m)
	}
	return apply(op, a, b)
}

// A chain of concatenations of one image, as a dense block builds
// ([x, x1], then [[x, x1], x2], …), copies the growing concatenation at
// every link: 2.6 GB a forward pass of ESRGAN's RRDBNet at 128×128, 12%
// of its time. With one image (batch 1, each input one contiguous run),
// the links instead share one arena: each link's output is a prefix of the
// next one's, and an activation (LeakyReLU, ReLU) that feeds a link
// writes its output straight into its place there. A link then copies
// only what is not already in place (the block's input x), and the
// chain's outputs take one arena instead of a buffer each. The values are
// the same: each node's output holds what it held, at another address.

// catArena is the float32 memory a chain shares. Places are claimed while
// the graph is built; the memory is made at the first run, when all are
// in, and no place is claimed after.
type catArena struct {
	size int
	buf  []float32
}

// catSlot is a place in an arena: buf[off : off+n].
type catSlot struct {
	arena  *catArena
	off, n int
	view   *tensor.Dense
	cat    gorgonia.Op // for an activation's slot: the concatenation that placed it
	catOff int         // and where that concatenation's own output starts
}

// get returns the slot as a tensor of the given shape.
func (s *catSlot) get(shape tensor.Shape) *tensor.Dense {
	if s.view == nil {
		if s.arena.buf == nil {
			s.arena.buf = make([]float32, s.arena.size)
		}
		s.view = tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(s.arena.buf[s.off:s.off+s.n]))
	}
	return s.view
}

// catPlace returns the slot of the concatenation op of a (n values) and b
// (m values): after a in a's arena if a is a link whose output ends its
// arena, else at the start of a new arena; and places b's output after a
// if b is an activation not yet placed nor run.
func catPlace(op gorgonia.Op, a, b *gorgonia.Node, n, m int) *catSlot {
	var ar *catArena
	off := 0
	if prev := linkSlot(a); prev != nil && prev.arena.buf == nil && prev.catOff+n == prev.arena.size {
		ar, off = prev.arena, prev.catOff
	} else {
		ar = &catArena{size: n}
	}
	s := &catSlot{arena: ar, off: off, n: n + m}
	bOff := ar.size
	ar.size += m
	if lop, ok := b.Op().(*leakyOp); ok && lop.slot == nil && !lop.ran {
		lop.slot = &catSlot{arena: ar, off: bOff, n: m, cat: op, catOff: off}
	}
	return s
}

// linkSlot returns, if a is a concatenation placed in an arena by
// catPlace, the slot of the activation it placed (which says where a
// starts), or nil.
func linkSlot(a *gorgonia.Node) *catSlot {
	if a.Graph() == nil {
		return nil
	}
	it := a.Graph().From(a.ID())
	for it.Next() {
		if lop, ok := it.Node().(*gorgonia.Node).Op().(*leakyOp); ok && lop.slot != nil && lop.slot.cat == a.Op() {
			return lop.slot
		}
	}
	return nil
}

// copyUnlessSame copies src into dst unless they are the same memory.
func copyUnlessSame(dst, src []float32) {
	if len(dst) > 0 && len(src) > 0 && &dst[0] == &src[0] {
		return
	}
	copy(dst, src)
}
