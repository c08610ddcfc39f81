package qgraph

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math/rand/v2"
	"sync"

	"github.com/chewxy/hm"
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
	op := newQuantizeOp(fwd, bwd, r, br, c.seed, 0)
	n, err := gorgonia.ApplyOp(op, x)
	if err != nil {
		return nil, fmt.Errorf("qgraph: Quantize %s: %w", x.Name(), err)
	}
	return n, nil
}

// quantizeOp rounds its input to fwd; its gradient is rounded to bwd by a
// second quantizeOp (stream+1) or passed through.
type quantizeOp struct {
	fwd, bwd   quant.Format
	fwdR, bwdR quant.Rounding
	seed       uint64
	stream     uint64 // 0 for a forward node, 1 for its backward node
	runs       *runCounter
}

// runCounter counts the runs of one node; it is not part of the op's
// identity (hash).
type runCounter struct {
	mu sync.Mutex
	n  uint64
}

func (c *runCounter) next() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func newQuantizeOp(fwd, bwd quant.Format, fr, br quant.Rounding, seed, stream uint64) *quantizeOp {
	return &quantizeOp{fwd: fwd, bwd: bwd, fwdR: fr, bwdR: br, seed: seed, stream: stream, runs: &runCounter{}}
}

func (op *quantizeOp) Arity() int { return 1 }

func (op *quantizeOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}

func (op *quantizeOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("qgraph: quantize takes 1 input, got %d", len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("qgraph: quantize: input shape %v is not a tensor.Shape", in[0])
	}
	return s.Clone(), nil
}

func (op *quantizeOp) ReturnsPtr() bool     { return false }
func (op *quantizeOp) CallsExtern() bool    { return false }
func (op *quantizeOp) OverwritesInput() int { return -1 }

func fmtName(f quant.Format) string {
	if f == nil {
		return "none"
	}
	return f.String()
}

// WriteHash writes every parameter: Gorgonia merges nodes whose hashes
// are equal, and two quantizers that differ in any field must stay apart.
func (op *quantizeOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "qgraph.quantize{fwd=%s,bwd=%s,fr=%v,br=%v,seed=%d,stream=%d}",
		fmtName(op.fwd), fmtName(op.bwd), op.fwdR, op.bwdR, op.seed, op.stream)
}

func (op *quantizeOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *quantizeOp) String() string {
	s := "Q(" + fmtName(op.fwd)
	if op.fwdR == quant.Stochastic && op.fwd != nil {
		s += ",sr"
	}
	if op.bwd != nil {
		s += "|∇" + op.bwd.String()
		if op.bwdR == quant.Stochastic {
			s += ",sr"
		}
	}
	return s + ")"
}

func (op *quantizeOp) DiffWRT(inputs int) []bool { return []bool{true} }

// SymDiff passes the gradient through, or rounds it to bwd with a
// quantizeOp of its own.
func (op *quantizeOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.bwd == nil {
		return gorgonia.Nodes{grad}, nil
	}
	back := newQuantizeOp(op.bwd, nil, op.bwdR, op.bwdR, op.seed, op.stream+1)
	n, err := gorgonia.ApplyOp(back, grad)
	if err != nil {
		return nil, fmt.Errorf("qgraph: quantized gradient: %w", err)
	}
	return gorgonia.Nodes{n}, nil
}

// Do rounds a copy of its input.
func (op *quantizeOp) Do(vals ...gorgonia.Value) (v gorgonia.Value, err error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("qgraph: quantize takes 1 input, got %d", len(vals))
	}
	defer func() { // format code panics on programmer errors; the VM must not crash
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("qgraph: %v: %v", op, r)
		}
	}()
	run := op.runs.next()
	var rng *rand.PCG
	if op.fwdR == quant.Stochastic && op.fwd != nil {
		rng = rand.NewPCG(op.seed^op.stream*0x9e3779b97f4a7c15, run)
	}
	switch x := vals[0].(type) {
	case *tensor.Dense:
		if x.RequiresIterator() {
			x = x.Materialize().(*tensor.Dense)
		}
		var out any
		switch src := x.Data().(type) {
		case []float32:
			dst := make([]float32, len(src))
			op.round32(dst, src, rng)
			out = dst
		case []float64:
			dst := make([]float64, len(src))
			if err := op.round64(dst, src, rng); err != nil {
				return nil, err
			}
			out = dst
		case float32: // a 0-d tensor
			var dst [1]float32
			op.round32(dst[:], []float32{src}, rng)
			return tensor.New(tensor.FromScalar(dst[0])), nil
		case float64:
			var dst [1]float64
			if err := op.round64(dst[:], []float64{src}, rng); err != nil {
				return nil, err
			}
			return tensor.New(tensor.FromScalar(dst[0])), nil
		default:
			return nil, fmt.Errorf("qgraph: quantize: dtype %v, want float32 or float64", x.Dtype())
		}
		return tensor.New(tensor.WithShape(x.Shape().Clone()...), tensor.WithBacking(out)), nil
	case *gorgonia.F32:
		var dst [1]float32
		op.round32(dst[:], []float32{float32(*x)}, rng)
		return gorgonia.NewF32(dst[0]), nil
	case *gorgonia.F64:
		var dst [1]float64
		if err := op.round64(dst[:], []float64{float64(*x)}, rng); err != nil {
			return nil, err
		}
		return gorgonia.NewF64(dst[0]), nil
	}
	return nil, fmt.Errorf("qgraph: quantize: value of type %T, want a float32 or float64 tensor", vals[0])
}

func (op *quantizeOp) round32(dst, src []float32, rng *rand.PCG) {
	if op.fwd == nil {
		copy(dst, src)
		return
	}
	quant.RoundTo(dst, src, op.fwd, op.fwdR, rng)
}

func (op *quantizeOp) round64(dst, src []float64, rng *rand.PCG) error {
	switch {
	case op.fwd == nil:
		copy(dst, src)
	case op.fwdR == quant.Stochastic:
		return fmt.Errorf("qgraph: %v: stochastic rounding of float64 tensors is not supported", op)
	default:
		for i, x := range src {
			dst[i] = op.fwd.Round64(x)
		}
	}
	return nil
}

// Runs returns how many times the quantization node n has run (the
// counter that, with the seed, fixes its stochastic rounding), and false
// if n is not a quantization node.
func Runs(n *gorgonia.Node) (uint64, bool) {
	op, ok := n.Op().(*quantizeOp)
	if !ok {
		return 0, false
	}
	op.runs.mu.Lock()
	defer op.runs.mu.Unlock()
	return op.runs.n, true
}

// SetRuns sets the run counter of the quantization node n, as when
// resuming from a checkpoint. It reports false if n is not a quantization
// node.
func SetRuns(n *gorgonia.Node, runs uint64) bool {
	op, ok := n.Op().(*quantizeOp)
	if !ok {
		return false
	}
	op.runs.mu.Lock()
	defer op.runs.mu.Unlock()
	op.runs.n = runs
	return true
}
