package nn

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// The activations below do what gorgonia.Rectify, LeakyRelu, Tanh and
// Sigmoid do, into buffers kept from run to run: Gorgonia's allocate their
// results and several temporaries on every run. Each keeps a private copy
// of what its backward pass needs, so an in-place op downstream cannot
// corrupt it.

// saved is a private per-element-type buffer.
type saved struct {
	s32 []float32
	s64 []float64
}

// ReLU returns max(x, 0).
func ReLU(x *gorgonia.Node) (*gorgonia.Node, error) { return leakyReLU(x, 0, "ReLU") }

// LeakyReLU returns x for x > 0 and alpha·x otherwise.
func LeakyReLU(x *gorgonia.Node, alpha float64) (*gorgonia.Node, error) {
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("nn: leaky relu: slope %v", alpha)
	}
	return leakyReLU(x, alpha, fmt.Sprintf("LeakyReLU(%g)", alpha))
}

func leakyReLU(x *gorgonia.Node, alpha float64, name string) (*gorgonia.Node, error) {
	var in saved // the input, for the backward pass
	// grad: the backward pass has been built. Until then (a node of an
	// inference graph, or a generator's forward pass inside a
	// discriminator's update) nothing reads the saved input, so the
	// forward pass neither copies it nor keeps a buffer of it.
	grad := false
	a := float32(alpha)
	fwd := &passJob{f: func(dst, src, saved []float32) {
		copy(saved, src)
		compute.LeakyReLU(dst, saved, a)
	}}
	apply1 := &passJob{f: func(dst, src, _ []float32) { compute.LeakyReLU(dst, src, a) }}
	back := &passJob{f: func(dx, dy, saved []float32) { compute.LeakyReLUBack(dx, dy, saved, a) }}
	xShape := x.Shape().Clone()
	var yBuf, dxBuf outBuf
	op := &diffOp{
		Func: funcOp{
			Name: fmt.Sprintf("%s[%p]%v", name, &in, xShape),
			In:   []tensor.Shape{xShape},
			Out:  xShape,
			Fn: func(ins []*tensor.Dense) (*tensor.Dense, error) {
				x := ins[0]
				y := yBuf.Get(x.Dtype(), xShape)
				switch {
				case isF64(x) && grad:
					in.s64 = grow(in.s64, x.Size())
					copy(in.s64, data[float64](x))
					compute.LeakyReLU(data[float64](y), in.s64, alpha)
				case isF64(x):
					compute.LeakyReLU(data[float64](y), data[float64](x), alpha)
				case grad:
					in.s32 = grow(in.s32, x.Size())
					fwd.src, fwd.dst, fwd.saved = data[float32](x), data[float32](y), in.s32
					elementwise(len(fwd.src), fwd)
				default:
					// saved is unused: the source stands in for it.
					apply1.src, apply1.dst, apply1.saved = data[float32](x), data[float32](y), data[float32](x)
					elementwise(len(apply1.src), apply1)
					apply1.src, apply1.dst, apply1.saved = nil, nil, nil
				}
				return y, nil
			},
		},
		WRT: []bool{true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, g *gorgonia.Node) (gorgonia.Nodes, error) {
		grad = true
		bop := &funcOp{
			Name: op.Name + ".grad",
			In:   []tensor.Shape{xShape},
			Out:  xShape,
			Fn: func(ins []*tensor.Dense) (*tensor.Dense, error) {
				dy := ins[0]
				dx := dxBuf.Get(dy.Dtype(), xShape)
				if isF64(dy) {
					compute.LeakyReLUBack(data[float64](dx), data[float64](dy), in.s64, alpha)
				} else {
					back.src, back.dst, back.saved = data[float32](dy), data[float32](dx), in.s32
					elementwise(len(back.src), back)
				}
				return dx, nil
			},
		}
		n, err := apply(bop, g)
		return gorgonia.Nodes{n}, err
	}
	lop := &leakyOp{diffOp: op}
	get := op.Func.Fn
	op.Func.Fn = func(ins []*tensor.Dense) (*tensor.Dense, error) {
		lop.ran = true
		if lop.slot != nil && !isF64(ins[0]) {
			// Placed in a concatenation's memory (concat.go): the same
			// pass, into the view.
			y := lop.slot.get(xShape)
			x := ins[0]
			if grad {
				in.s32 = grow(in.s32, x.Size())
				fwd.src, fwd.dst, fwd.saved = data[float32](x), data[float32](y), in.s32
				elementwise(len(fwd.src), fwd)
				return y, nil
			}
			apply1.src, apply1.dst, apply1.saved = data[float32](x), data[float32](y), data[float32](x)
			elementwise(len(apply1.src), apply1)
			apply1.src, apply1.dst, apply1.saved = nil, nil, nil
			return y, nil
		}
		return get(ins)
	}
	return apply(lop, x)
}

// leakyOp is the op of a LeakyReLU or ReLU node, whose float32 output a
// concatenation of one image that takes it may place in its own memory
// (slot, set by Concat before any run), so that the concatenation need not
// copy it.
type leakyOp struct {
	*diffOp
	slot *catSlot
	ran  bool
}

// passJob is a float32 pass of an element-wise op, split by elementwise:
// f(dst, src, saved) over each range, where saved is what the forward
// pass keeps for the backward one. The op keeps one job per direction,
// set at every run, so that the split allocates nothing.
type passJob struct {
	src, dst, saved []float32
	f               func(dst, src, saved []float32)
}

func (j *passJob) Range(lo, hi int) { j.f(j.dst[lo:hi], j.src[lo:hi], j.saved[lo:hi]) }

// elementwise runs r over [0, n) split across the cores when n is large
// enough to pay for the goroutines; r must be element-wise, so that the
// split does not change the bits.
func elementwise(n int, r compute.Ranger) { compute.ForRanges(n, 1<<15, r) }

// Tanh returns tanh(x).
func Tanh(x *gorgonia.Node) (*gorgonia.Node, error) {
	var out saved // the output, for the backward pass
	fwd := &passJob{f: func(y, x, out []float32) {
		compute.Tanh(out, x)
		copy(y, out)
	}}
	back := &passJob{f: compute.TanhBack[float32]}
	return unary(x, fmt.Sprintf("Tanh[%p]", &out), x.Shape(),
		func(x, y *tensor.Dense) {
			if isF64(x) {
				out.s64 = grow(out.s64, x.Size())
				compute.Tanh(out.s64, data[float64](x))
				copy(data[float64](y), out.s64)
			} else {
				out.s32 = grow(out.s32, x.Size())
				fwd.src, fwd.dst, fwd.saved = data[float32](x), data[float32](y), out.s32
				elementwise(len(fwd.src), fwd)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.TanhBack(data[float64](dx), data[float64](dy), out.s64)
			} else {
				back.src, back.dst, back.saved = data[float32](dy), data[float32](dx), out.s32
				elementwise(len(back.src), back)
			}
		})
}

// Sigmoid returns the logistic function 1/(1+exp(-x)), as PyTorch's
// nn.Sigmoid, computed in float64 without overflow for any x (it is 0 or
// 1 exactly far out, never NaN). The backward pass is dy·y·(1-y) from the
// saved output y.
func Sigmoid(x *gorgonia.Node) (*gorgonia.Node, error) {
	var out saved // the output, for the backward pass
	return unary(x, fmt.Sprintf("Sigmoid[%p]", &out), x.Shape(),
		func(x, y *tensor.Dense) {
			if isF64(x) {
				out.s64 = grow(out.s64, x.Size())
				compute.Sigmoid(out.s64, data[float64](x))
				copy(data[float64](y), out.s64)
			} else {
				out.s32 = grow(out.s32, x.Size())
				compute.Sigmoid(out.s32, data[float32](x))
				copy(data[float32](y), out.s32)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.SigmoidBack(data[float64](dx), data[float64](dy), out.s64)
			} else {
				compute.SigmoidBack(data[float32](dx), data[float32](dy), out.s32)
			}
		})
}
