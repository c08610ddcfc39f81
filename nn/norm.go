package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// InstanceNorm normalises each channel of each sample of a (batch, C, H, W)
// input over H and W, then scales by Gamma and shifts by Beta (one per
// channel), as CycleGAN's generator needs. It is computed by one op whose
// backward pass writes nothing to the log (gorgonia.GroupNorm, which could
// do the same with C groups, logs a line on every backward call).
type InstanceNorm struct {
	C   int
	Eps float64
	// Gamma and Beta, shape (C), start at 1 and 0. Leave them out of the
	// solver for PyTorch's affine=False.
	Gamma, Beta *gorgonia.Node
	name        string
}

// NewInstanceNorm returns an InstanceNorm over c channels in g. Only the
// WithDtype option applies.
func NewInstanceNorm(g *gorgonia.ExprGraph, name string, c int, eps float64, opts ...Option) (*InstanceNorm, error) {
	if c <= 0 || !(eps > 0) {
		return nil, fmt.Errorf("nn: instancenorm %s: %d channels, epsilon %g: want both positive", name, c, eps)
	}
	o := buildOptions(opts)
	l := &InstanceNorm{C: c, Eps: eps, name: name}
	l.Gamma, l.Beta = affineParams(g, o.dtype, c, name)
	return l, nil
}

func affineParams(g *gorgonia.ExprGraph, dt tensor.Dtype, c int, name string) (gamma, beta *gorgonia.Node) {
	gamma = paramNode(g, newParam(dt, []int{c}, func(int) float64 { return 1 }), name+".gamma")
	beta = paramNode(g, newParam(dt, []int{c}, func(int) float64 { return 0 }), name+".beta")
	return gamma, beta
}

// Share returns a copy of l in graph g whose parameter nodes hold the same
// tensors.
func (l *InstanceNorm) Share(g *gorgonia.ExprGraph) *InstanceNorm {
	c := *l
	c.Gamma = paramNode(g, l.Gamma.Value().(*tensor.Dense), l.name+".gamma")
	c.Beta = paramNode(g, l.Beta.Value().(*tensor.Dense), l.name+".beta")
	return &c
}

// Params returns Gamma and Beta.
func (l *InstanceNorm) Params() gorgonia.Nodes { return gorgonia.Nodes{l.Gamma, l.Beta} }

// Fwd returns the normalised x.
func (l *InstanceNorm) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) {
	st := &normState{name: "InstanceNorm " + l.name, perSample: true, eps: l.Eps}
	return st.node(x, l.Gamma, l.Beta, l.C)
}

// BatchNorm normalises each channel of a (batch, C) or (batch, C, H, W)
// input over the batch (and H, W), then scales by Gamma and shifts by
// Beta. In training mode (the default) it uses the batch statistics and
// updates the running mean and unbiased variance by
// running = (1-Momentum)·running + Momentum·batch, as PyTorch does; in
// evaluation mode it uses the running statistics. The mode is the
// copy's (see Share), set by Train and Eval, and applies to the next runs
// of every node built from that copy; creating a TapeMachine does not change it or the
// statistics (gorgonia.BatchNorm's are reset whenever one is created).
type BatchNorm struct {
	C             int
	Momentum, Eps float64
	Gamma, Beta   *gorgonia.Node
	// RunningMean and RunningVar, shape (C), start at 0 and 1. They are
	// shared by every copy made with Share.
	RunningMean, RunningVar *tensor.Dense
	mode                    *bool // training; each copy has its own
	name                    string
}

// NewBatchNorm returns a BatchNorm over c channels in g, in training mode.
// Only the WithDtype option applies.
func NewBatchNorm(g *gorgonia.ExprGraph, name string, c int, momentum, eps float64, opts ...Option) (*BatchNorm, error) {
	if c <= 0 || !(eps > 0) || !(momentum >= 0 && momentum <= 1) {
		return nil, fmt.Errorf("nn: batchnorm %s: %d channels, momentum %g, epsilon %g: want c > 0, momentum in [0,1], epsilon > 0", name, c, momentum, eps)
	}
	o := buildOptions(opts)
	training := true
	l := &BatchNorm{C: c, Momentum: momentum, Eps: eps, mode: &training, name: name}
	l.Gamma, l.Beta = affineParams(g, o.dtype, c, name)
	l.RunningMean = newParam(o.dtype, []int{c}, func(int) float64 { return 0 })
	l.RunningVar = newParam(o.dtype, []int{c}, func(int) float64 { return 1 })
	return l, nil
}

// Train puts the layer in training mode.
func (l *BatchNorm) Train() { *l.mode = true }

// Eval puts the layer in evaluation mode.
func (l *BatchNorm) Eval() { *l.mode = false }

// Training reports whether the layer is in training mode.
func (l *BatchNorm) Training() bool { return *l.mode }

// Share returns a copy of l in graph g that shares its parameters and
// running statistics. The copy starts in l's mode and has its own from
// then on, so that a sampler's copy can evaluate while a trainer's
// copies train.
func (l *BatchNorm) Share(g *gorgonia.ExprGraph) *BatchNorm {
	c := *l
	mode := *l.mode
	c.mode = &mode
	c.Gamma = paramNode(g, l.Gamma.Value().(*tensor.Dense), l.name+".gamma")
	c.Beta = paramNode(g, l.Beta.Value().(*tensor.Dense), l.name+".beta")
	return &c
}

// Params returns Gamma and Beta.
func (l *BatchNorm) Params() gorgonia.Nodes { return gorgonia.Nodes{l.Gamma, l.Beta} }

// Fwd returns the normalised x.
func (l *BatchNorm) Fwd(x *gorgonia.Node) (*gorgonia.Node, error) { return l.fwd(x, false) }

// fwd returns the normalised x; frozen keeps the running statistics as
// they are in training mode.
func (l *BatchNorm) fwd(x *gorgonia.Node, frozen bool) (*gorgonia.Node, error) {
	st := &normState{name: "BatchNorm " + l.name, bn: l, eps: l.Eps, frozen: frozen}
	return st.node(x, l.Gamma, l.Beta, l.C)
}

// normState is one normalisation node's state. A group is the set of
// elements normalised together: one (sample, channel) plane for instance
// norm, one channel across the batch for batch norm.
type normState struct {
	name        string
	perSample   bool
	bn          *BatchNorm // nil for instance norm
	eps         float64
	n, c, inner int
	xShape      tensor.Shape
	frozen      bool // batch norm: do not update the running statistics
	// The mean and 1/σ of each group, from which the backward ops
	// recompute x̂ = (x - mean)·inv from the input x (one of their
	// inputs) with the forward pass's operations: the same bits as
	// keeping x̂, which in float64 would be twice the input's size and
	// cost a write and two reads of it a step.
	mu, invstd []float64
	batchStats bool // the last forward run normalised by batch statistics
	// The affine gradients (and batch norm's dx) need Σdy and Σdy·x̂
	// per channel over the batch: the first backward op to run after a
	// forward run computes them (normSums), the others reuse them.
	gen, sumsGen    int               // forward runs; that of the sums
	sumsDy          *tensor.Dense     // the gradient summed
	sumDy, sumDyHat []float64         // per channel
	ws              compute.Workspace // the kernels' state
	y, dx, dg, db   outBuf
}

func (st *normState) node(x, gamma, beta *gorgonia.Node, c int) (*gorgonia.Node, error) {
	s := x.Shape()
	if (s.Dims() != 4 && (st.perSample || s.Dims() != 2)) || s[1] != c {
		return nil, fmt.Errorf("nn: %s: input shape %v, want (batch, %d, H, W)", st.name, s, c)
	}
	if err := checkDtype(x, gamma.Dtype(), st.name); err != nil {
		return nil, err
	}
	st.n, st.c, st.inner, st.xShape = s[0], s[1], s.TotalSize()/(s[0]*s[1]), s.Clone()
	op := &diffOp{
		Func: funcOp{
			Name: fmt.Sprintf("%s[%p](eps=%g)", st.name, st, st.eps),
			In:   []tensor.Shape{st.xShape, gamma.Shape().Clone(), beta.Shape().Clone()},
			Out:  st.xShape,
			Buf:  &st.y,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				y := st.y.Get(in[0].Dtype(), st.xShape)
				if isF64(y) {
					normForward[float64](st, in[0], in[1], in[2], y)
				} else {
					normForward[float32](st, in[0], in[1], in[2], y)
				}
				return y, nil
			},
		},
		WRT: []bool{true, true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		// Each backward op takes the input x too, to recompute x̂ from.
		mk := func(what string, shape tensor.Shape, buf *outBuf, do func(dy, gamma, x, dst *tensor.Dense)) (*gorgonia.Node, error) {
			bop := &funcOp{
				Name: op.Name + "." + what,
				In:   []tensor.Shape{grad.Shape().Clone(), inputs[1].Shape().Clone(), st.xShape},
				Out:  shape.Clone(),
				Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
					d := buf.Get(in[0].Dtype(), shape)
					do(in[0], in[1], in[2], d)
					return d, nil
				},
			}
			return apply(bop, grad, inputs[1], inputs[0])
		}
		dx, err := mk("dx", st.xShape, &st.dx, func(dy, gamma, x, dst *tensor.Dense) {
			if isF64(dy) {
				normBackX[float64](st, dy, gamma, x, dst)
			} else {
				normBackX[float32](st, dy, gamma, x, dst)
			}
		})
		if err != nil {
			return nil, err
		}
		dg, err := mk("dgamma", inputs[1].Shape(), &st.dg, func(dy, _, x, dst *tensor.Dense) {
			if isF64(dy) {
				normBackAffine[float64](st, dy, x, dst, true)
			} else {
				normBackAffine[float32](st, dy, x, dst, true)
			}
		})
		if err != nil {
			return nil, err
		}
		db, err := mk("dbeta", inputs[2].Shape(), &st.db, func(dy, _, x, dst *tensor.Dense) {
			if isF64(dy) {
				normBackAffine[float64](st, dy, x, dst, false)
			} else {
				normBackAffine[float32](st, dy, x, dst, false)
			}
		})
		return gorgonia.Nodes{dx, dg, db}, err
	}
	return apply(op, x, gamma, beta)
}

// geom returns the shape and mode of the node's kernels for its next run.
func (st *normState) geom() compute.Norm {
	g := compute.Norm{N: st.n, C: st.c, Inner: st.inner, PerSample: st.perSample, Eps: st.eps, Running: !st.batchStats}
	if st.bn != nil && st.batchStats && !st.frozen {
		g.Update, g.Momentum = true, st.bn.Momentum
	}
	return g
}

// normSums returns Σdy and Σdy·x̂ per channel, over the whole batch
// (batch norm's dx needs both; the affine gradients of both norms are
// them), computed once per forward run and gradient dyt, with x̂
// recomputed from the input xt.
func normSums[T compute.Float](st *normState, dyt, xt *tensor.Dense) (s, sx []float64) {
	if st.sumsGen == st.gen && st.sumsDy == dyt && len(st.sumDy) == st.c {
		return st.sumDy, st.sumDyHat
	}
	st.sumDy, st.sumDyHat = grow(st.sumDy, st.c), grow(st.sumDyHat, st.c)
	compute.NormSums(&st.ws, st.sumDy, st.sumDyHat, data[T](dyt), data[T](xt), st.mu, st.invstd, st.geom())
	st.sumsGen, st.sumsDy = st.gen, dyt
	return st.sumDy, st.sumDyHat
}

func normForward[T compute.Float](st *normState, xt, gt, bt, yt *tensor.Dense) {
	x := data[T](xt)
	st.gen++
	st.batchStats = st.bn == nil || st.bn.Training()
	g := st.geom()
	st.mu = grow(st.mu, st.c*g.Groups())
	st.invstd = grow(st.invstd, st.c*g.Groups())
	var rm, rv []T
	if st.bn != nil {
		rm, rv = data[T](st.bn.RunningMean), data[T](st.bn.RunningVar)
	}
	compute.NormForward(&st.ws, data[T](yt), x, data[T](gt), data[T](bt), rm, rv, st.mu, st.invstd, g)
}

func normBackX[T compute.Float](st *normState, dyt, gt, xt, dxt *tensor.Dense) {
	var bs, bsx []float64
	if st.batchStats && !st.perSample {
		bs, bsx = normSums[T](st, dyt, xt)
	}
	compute.NormBackX(&st.ws, data[T](dxt), data[T](dyt), data[T](gt), data[T](xt), st.mu, st.invstd, bs, bsx, st.geom())
}

// normBackAffine sets dst to the gradient of gamma (Σ dy·x̂) or beta (Σ dy).
func normBackAffine[T compute.Float](st *normState, dyt, xt, dstt *tensor.Dense, gamma bool) {
	dst := data[T](dstt)
	s, sx := normSums[T](st, dyt, xt)
	if gamma {
		s = sx
	}
	for c, v := range s {
		dst[c] = T(v)
	}
}
