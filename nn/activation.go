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

// saved is a private per-element-type buffer, kept only when the op's
// gradient is built (unarySaving).
type saved struct {
	s32  []float32
	s64  []float64
	keep bool
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
	a := float32(alpha)
	fwd := &passJob{f: func(dst, src, saved []float32) {
		copy(saved, src)
		compute.LeakyReLU(dst, saved, a)
	}}
	direct := &passJob{f: func(dst, src, _ []float32) { compute.LeakyReLU(dst, src, a) }}
	back := &passJob{f: func(dx, dy, saved []float32) { compute.LeakyReLUBack(dx, dy, saved, a) }}
	// On the CPU backend a float32 pass keeps only which inputs were
	// positive, a bit each, not a copy of the input: the backward pass
	// needs no more, and gets the same bits.
	fwdSign, backSign := &signJob{alpha: a}, &signJob{alpha: a, back: true}
	return unarySaving(x, fmt.Sprintf("%s[%p]", name, &in), &in.keep,
		func(x, y *tensor.Dense) {
			_, cpu := compute.Current().(compute.CPU)
			fwdSign.used = false
			switch {
			case !in.keep && isF64(x):
				compute.LeakyReLU(data[float64](y), data[float64](x), alpha)
				return
			case !in.keep:
				direct.src, direct.dst, direct.saved = data[float32](x), data[float32](y), data[float32](x)
				elementwise(len(direct.src), direct)
				return
			case cpu && !isF64(x):
				n := x.Size()
				if cap(fwdSign.pos) < (n+7)/8 {
					fwdSign.pos = make([]uint8, (n+7)/8)
				}
				fwdSign.pos = fwdSign.pos[:(n+7)/8]
				fwdSign.x, fwdSign.y, fwdSign.used = data[float32](x), data[float32](y), true
				compute.ForRanges(len(fwdSign.pos), 1<<12, fwdSign)
				return
			}
			if isF64(x) {
				in.s64 = grow(in.s64, x.Size())
				copy(in.s64, data[float64](x))
				compute.LeakyReLU(data[float64](y), in.s64, alpha)
			} else {
				in.s32 = grow(in.s32, x.Size())
				fwd.src, fwd.dst, fwd.saved = data[float32](x), data[float32](y), in.s32
				elementwise(len(fwd.src), fwd)
			}
		},
		func(dy, dx *tensor.Dense) {
			switch {
			case fwdSign.used && !isF64(dy):
				backSign.pos, backSign.x, backSign.y = fwdSign.pos, data[float32](dy), data[float32](dx)
				compute.ForRanges(len(backSign.pos), 1<<12, backSign)
			case isF64(dy):
				compute.LeakyReLUBack(data[float64](dx), data[float64](dy), in.s64, alpha)
			default:
				back.src, back.dst, back.saved = data[float32](dy), data[float32](dx), in.s32
				elementwise(len(back.src), back)
			}
		})
}

// signJob is a float32 pass of a leaky ReLU that keeps the signs of its
// input (compute.LeakyReLUSign), or the backward pass that reads them
// (back: x is dy, y is dx), split by compute.ForRanges over the bytes of
// pos, eight values each.
type signJob struct {
	x, y  []float32
	pos   []uint8
	alpha float32
	back  bool
	used  bool // the last forward pass kept pos
}

func (j *signJob) Range(lo, hi int) {
	a, b := 8*lo, min(8*hi, len(j.x))
	if j.back {
		compute.LeakyReLUBackSign(j.y[a:b], j.x[a:b], j.pos[lo:hi], j.alpha)
	} else {
		compute.LeakyReLUSign(j.y[a:b], j.pos[lo:hi], j.x[a:b], j.alpha)
	}
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
	direct := &passJob{f: func(y, x, _ []float32) { compute.Tanh(y, x) }}
	back := &passJob{f: compute.TanhBack[float32]}
	return unarySaving(x, fmt.Sprintf("Tanh[%p]", &out), &out.keep,
		func(x, y *tensor.Dense) {
			switch {
			case !out.keep && isF64(x):
				compute.Tanh(data[float64](y), data[float64](x))
				return
			case !out.keep:
				direct.src, direct.dst, direct.saved = data[float32](x), data[float32](y), data[float32](x)
				elementwise(len(direct.src), direct)
				return
			}
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
	return unarySaving(x, fmt.Sprintf("Sigmoid[%p]", &out), &out.keep,
		func(x, y *tensor.Dense) {
			switch {
			case !out.keep && isF64(x):
				compute.Sigmoid(data[float64](y), data[float64](x))
				return
			case !out.keep:
				compute.Sigmoid(data[float32](y), data[float32](x))
				return
			}
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
