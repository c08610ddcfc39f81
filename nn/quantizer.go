package nn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/graphop"
	"github.com/positgan/positgan/quant"
)

// A Quantizer says how one tensor is rounded: to an element-wise Format
// or, for an operand of a dot product, to a block format (Block), with a
// Rounding. It is QPyTorch's number and rounding as one value; the zero
// Quantizer rounds nothing (float32). Quantize puts one in a graph, with
// a second one for the gradient; the dot-product layers apply theirs
// inside their kernels; Adam applies the Master, Grad and moment roles
// to its tensors.
type Quantizer struct {
	Format   quant.Format      // element-wise format; nil: none
	Block    quant.BlockFormat // block format of a dot-product operand; zero: none
	Rounding quant.Rounding
}

// IsZero reports whether q rounds nothing.
func (q Quantizer) IsZero() bool { return q.Format == nil && q.Block.IsZero() }

// String returns the format's name ("none" for the zero Quantizer),
// followed by ",sr" for stochastic rounding.
func (q Quantizer) String() string {
	var s string
	switch {
	case q.Format != nil:
		s = q.Format.String()
	case !q.Block.IsZero():
		s = q.Block.String()
	default:
		return "none"
	}
	if q.Rounding == quant.Stochastic {
		s += ",sr"
	}
	return s
}

// Rounder returns q's kernel: a compute.Rounder for its format or block
// format and rounding, drawing stochastic rounding's bits from rng (which
// it needs only then).
func (q Quantizer) Rounder(rng *rand.PCG) *compute.Rounder {
	if !q.Block.IsZero() {
		return compute.NewBlockRounder(q.Block, q.Rounding, rng)
	}
	return compute.NewRounder(q.Format, q.Rounding, rng)
}

// A Stream is where quantizer nodes draw the random bits of stochastic
// rounding from. There are two kinds, because two kinds of graph need
// them: nn's layers, which the trainer rebuilds with fresh seeds (see
// LayerSeed), draw from one generator a layer's nodes share; graphs that
// are run over and over (nn/qgraph) give each run of each node its own
// generator, so that a run can be repeated from its count.
type Stream struct {
	shared *rand.PCG // nil for a run stream
	seed   uint64    // a run stream's
}

// SharedStream returns a Stream of one generator, seeded by (seed, id),
// that the nodes using it draw from in the order they run. Float64 data
// (gradient checks) are rounded to nearest.
func SharedStream(seed, id uint64) *Stream { return &Stream{shared: rand.NewPCG(seed, id)} }

// RunStream returns a Stream that gives run k of a node (counting from 1
// for the node's life) a generator seeded by seed, the node's direction
// (forward or gradient) and k alone: the same seed and the same sequence
// of runs give the same bits, whatever else the program does, and
// SetQuantizerRuns resumes a node at a given run. Stochastic rounding of
// float64 data fails when the graph runs: it could not be repeated.
func RunStream(seed uint64) *Stream { return &Stream{seed: seed} }

// Quantize returns a node whose value is x rounded by fwd and whose
// gradient is the incoming gradient rounded by bwd (the zero Quantizer:
// passed straight through, the straight-through estimator). With both
// zero it returns x itself. Stochastic rounding draws from s, which may be
// nil when neither quantizer is stochastic. Block formats need a matrix
// shape and are applied by the dot-product layers, not here.
//
// x may be float32 or float64 (a tensor or a scalar). The node never
// writes into x, so it is also a safe barrier after a Reshape view
// (Gorgonia issue 511).
func Quantize(x *gorgonia.Node, fwd, bwd Quantizer, s *Stream) (*gorgonia.Node, error) {
	if x == nil {
		return nil, errors.New("nn: Quantize of a nil node")
	}
	if fwd.IsZero() && bwd.IsZero() {
		return x, nil
	}
	if !fwd.Block.IsZero() || !bwd.Block.IsZero() {
		return nil, fmt.Errorf("nn: Quantize %s: block formats round the operands of a dot product, in its layer", x.Name())
	}
	if s == nil && (fwd.stochastic() || bwd.stochastic()) {
		return nil, fmt.Errorf("nn: Quantize %s: stochastic rounding needs a Stream", x.Name())
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn: Quantize %s: dtype %v, want float32 or float64", x.Name(), dt)
	}
	return apply(NewQuantizeOp(fwd, bwd, s), x)
}

func (q Quantizer) stochastic() bool { return !q.IsZero() && q.Rounding == quant.Stochastic }

// QuantizeOp is the one quantizer op, forward and backward: it rounds its
// input by Fwd, and its gradient is the incoming one rounded by Bwd, by a
// QuantizeOp of its own (or passed straight through). Quantize builds it;
// nn's layers with an Other role and nn/qgraph use it. Its Gorgonia op methods
// are those of the graphop.Map it embeds: the output has the input's
// shape, any rank, and lives in a buffer the op keeps.
type QuantizeOp struct {
	mapOp
	fwd, bwd Quantizer
	s        *Stream
	dir      uint64 // 0 for a forward node, 1 for its gradient's (a run stream's seed)
	label    string // where it sits, for String (nn's Other roles)

	r    *compute.Rounder // fwd's kernel
	pcg  rand.PCG         // a run stream's generator, reseeded at each run
	runs *runCounter      // a run stream's count of runs
}

// mapOp is embedded by QuantizeOp under a name of nn's own, so that the
// Map's fields do not show on the exported type.
type mapOp = graphop.Map

// NewQuantizeOp returns the op Quantize applies: x rounded by fwd, its
// gradient by bwd, stochastic rounding drawing from s.
func NewQuantizeOp(fwd, bwd Quantizer, s *Stream) *QuantizeOp {
	return newQuantizeOp(fwd, bwd, s, 0, "")
}

func newQuantizeOp(fwd, bwd Quantizer, s *Stream, dir uint64, label string) *QuantizeOp {
	op := &QuantizeOp{fwd: fwd, bwd: bwd, s: s, dir: dir, label: label, runs: &runCounter{}}
	rng := &op.pcg
	if s != nil && s.shared != nil {
		rng = s.shared
	}
	op.r = fwd.Rounder(rng)
	op.mapOp = mapOp{Name: op.name(), Key: op.key(), Fn: op.round, Grad: op.grad}
	return op
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

// key is the op's hash. It spells out every parameter: Gorgonia merges
// nodes whose hashes are equal, and two quantizers that differ in any
// field must stay apart. Nodes drawing from a shared stream are told apart
// by it, as the nodes of two layers must be.
func (op *QuantizeOp) key() string {
	k := fmt.Sprintf("nn.quantize{fwd=%s/%v,bwd=%s/%v,dir=%d,label=%s", op.fwd, op.fwd.Rounding, op.bwd, op.bwd.Rounding, op.dir, op.label)
	if op.s != nil {
		k += fmt.Sprintf(",seed=%d,shared=%p", op.s.seed, op.s.shared)
	}
	return k + "}"
}

// name is the op's String: Q(forward format[,sr][|∇gradient format[,sr]]),
// then the label of an Other role in brackets.
func (op *QuantizeOp) name() string {
	s := "Q(" + op.fwd.String()
	if !op.bwd.IsZero() {
		s += "|∇" + op.bwd.String()
	}
	s += ")"
	if op.label != "" {
		s += "[" + op.label + "]"
	}
	return s
}

// grad passes the gradient through, or rounds it by bwd with a
// QuantizeOp of its own, drawing from the same stream (a run stream: in
// the gradient's direction).
func (op *QuantizeOp) grad(_, _, dy *gorgonia.Node) (*gorgonia.Node, error) {
	if op.bwd.IsZero() {
		return dy, nil
	}
	label := op.label
	if label != "" {
		label += ".grad"
	}
	n, err := apply(newQuantizeOp(op.bwd, Quantizer{}, op.s, op.dir+1, label), dy)
	if err != nil {
		return nil, fmt.Errorf("nn: quantized gradient: %w", err)
	}
	return n, nil
}

// round rounds x into y, the node's output buffer.
func (op *QuantizeOp) round(y, x *tensor.Dense) (err error) {
	defer func() { // format code panics on programmer errors; the VM must not crash
		if r := recover(); r != nil {
			err = fmt.Errorf("nn: %v: %v", op, r)
		}
	}()
	if op.s != nil && op.s.shared == nil {
		// A run stream: run k draws from (seed, direction, k) alone.
		op.pcg.Seed(op.s.seed^op.dir*0x9e3779b97f4a7c15, op.runs.next())
	}
	switch x.Dtype() {
	case tensor.Float32:
		op.r.Round(y.Float32s(), x.Float32s())
	case tensor.Float64:
		if op.fwd.stochastic() && op.s.shared == nil {
			return fmt.Errorf("nn: %v: stochastic rounding of float64 tensors is not supported", op)
		}
		op.r.Round64(y.Float64s(), x.Float64s())
	default:
		return fmt.Errorf("nn: quantize: dtype %v, want float32 or float64", x.Dtype())
	}
	return nil
}

// QuantizerRuns returns how many times the quantizer node n, drawing from
// a run stream, has run (the count that, with the seed, fixes its
// stochastic rounding), and false if n is no such node.
func QuantizerRuns(n *gorgonia.Node) (uint64, bool) {
	op, ok := n.Op().(*QuantizeOp)
	if !ok || op.s == nil || op.s.shared != nil {
		return 0, false
	}
	op.runs.mu.Lock()
	defer op.runs.mu.Unlock()
	return op.runs.n, true
}

// SetQuantizerRuns sets the run count of the quantizer node n, drawing
// from a run stream, as when resuming from a checkpoint. It reports false
// if n is no such node.
func SetQuantizerRuns(n *gorgonia.Node, runs uint64) bool {
	op, ok := n.Op().(*QuantizeOp)
	if !ok || op.s == nil || op.s.shared != nil {
		return false
	}
	op.runs.mu.Lock()
	defer op.runs.mu.Unlock()
	op.runs.n = runs
	return true
}
