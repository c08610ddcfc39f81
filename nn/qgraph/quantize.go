package qgraph

import (
	"errors"
	"fmt"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// An Option adjusts Quantize and the layer wrappers.
type Option func(*config)

type config struct {
	seed      uint64
	seeded    bool
	bwdR      quant.Rounding
	bwdRSet   bool
	learnable map[*gorgonia.Node]bool // Rewrite only
	layerName func(dot, weight *gorgonia.Node) string
}

// WithSeed sets the seed of stochastic rounding. Quantize uses it as is;
// the layer wrappers and Rewrite derive one seed per quantization node
// from it, the layer name and the tensor role, so that no two nodes share
// a random stream. Stochastic rounding without a seed is an error.
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed, c.seeded = seed, true }
}

// WithBackwardRounding sets the rounding of the backward pass of Quantize
// (by default the forward rounding).
func WithBackwardRounding(r quant.Rounding) Option {
	return func(c *config) { c.bwdR, c.bwdRSet = r, true }
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Quantize returns a node whose value is x rounded to fwd (nil: x
// unchanged) and whose gradient is the incoming gradient rounded to bwd
// (nil: passed straight through, the straight-through estimator). With
// both nil it returns x itself. Rounding r applies to both passes unless
// WithBackwardRounding says otherwise; stochastic rounding needs WithSeed.
// It is nn.Quantize, the one quantizer op, with quantizers made of these
// formats and roundings, and an nn.RunStream of the seed.
//
// x may be float32 or float64 (a tensor or a scalar). float64 values are
// rounded once, by quant.Format.Round64; stochastic rounding of float64 is
// not supported (quant.Format has no float64 stochastic rounding) and
// fails when the graph runs.
//
// The node never writes into x (it copies), so it is also a safe barrier
// after a Reshape view (Gorgonia issue 511).
//
// Stochastic rounding is reproducible: run k of the node (counting from 1
// for the node's life) draws its random bits from a PCG generator seeded
// by (seed, k) alone, so the same seed and the same sequence of runs give
// the same bits, whatever else the program does. The backward node of the
// same Quantize uses an independent stream. To resume a run bit for bit,
// restore the run counters (see Runs and SetRuns).
func Quantize(x *gorgonia.Node, fwd, bwd quant.Format, r quant.Rounding, opts ...Option) (*gorgonia.Node, error) {
	if x == nil {
		return nil, errors.New("qgraph: Quantize of a nil node")
	}
	if fwd == nil && bwd == nil {
		return x, nil
	}
	c := newConfig(opts)
	br := r
	if c.bwdRSet {
		br = c.bwdR
	}
	if !c.seeded && (r == quant.Stochastic && fwd != nil || br == quant.Stochastic && bwd != nil) {
		return nil, errors.New("qgraph: stochastic rounding needs a seed (qgraph.WithSeed)")
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("qgraph: Quantize %s: dtype %v, want float32 or float64", x.Name(), dt)
	}
	n, err := gorgonia.ApplyOp(newQuantizeOp(fwd, bwd, r, br, c.seed, 0), x)
	if err != nil {
		return nil, fmt.Errorf("qgraph: Quantize %s: %w", x.Name(), err)
	}
	return n, nil
}

// quantizeOp is the op Quantize applies: nn's.
type quantizeOp = nn.QuantizeOp

// newQuantizeOp returns a forward quantizer node's op (stream 0; the
// gradient's node, stream 1, is made by its SymDiff).
func newQuantizeOp(fwd, bwd quant.Format, fr, br quant.Rounding, seed, stream uint64) *quantizeOp {
	if stream != 0 {
		panic("qgraph: a quantizer's gradient node is made by its SymDiff")
	}
	return nn.NewQuantizeOp(nn.Quantizer{Format: fwd, Rounding: fr}, nn.Quantizer{Format: bwd, Rounding: br}, nn.RunStream(seed))
}

// Runs returns how many times the quantization node n has run (the
// counter that, with the seed, fixes its stochastic rounding), and false
// if n is not a quantization node.
func Runs(n *gorgonia.Node) (uint64, bool) { return nn.QuantizerRuns(n) }

// SetRuns sets the run counter of the quantization node n, as when
// resuming from a checkpoint. It reports false if n is not a quantization
// node.
func SetRuns(n *gorgonia.Node, runs uint64) bool { return nn.SetQuantizerRuns(n, runs) }

func fmtName(f quant.Format) string {
	if f == nil {
		return "none"
	}
	return f.String()
}
