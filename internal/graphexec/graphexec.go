// Package graphexec runs Gorgonia expression graphs without Gorgonia's
// virtual machines: the op nodes a set of roots needs, in Gorgonia's own
// topological order, each by its op's Do, with each result bound to its
// node so that Node.Value reads it as after a TapeMachine run.
//
// A Program can also be split in two (Split), so that the part of a graph
// some nodes depend on runs early and the rest later: the trainer runs a
// generator's forward pass before the discriminator's update that reads
// it, and the rest of the generator's update after it. A TapeMachine runs
// all of its program or nothing, and allocates for every instruction of
// every run; a Program run allocates only what the ops themselves do.
//
// A Program keeps every node's result between runs, as training needs
// (the backward pass reads the forward results). An inference program
// can instead Recycle: each op's output buffer is lent on to later ops
// once its last reader has run, so that a run holds the largest set of
// live results, not the whole network's.
package graphexec

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphop"
)

// A Program runs the op nodes of a graph in a fixed order. Its runs must
// not overlap: the graph's nodes hold one value each.
type Program struct {
	steps []step
	roots []*gorgonia.Node
	pool  *graphop.Pool // set by Recycle
}

// step computes one op node from its arguments.
type step struct {
	node *gorgonia.Node
	args gorgonia.Nodes
	vals []gorgonia.Value   // the arguments' values, reused by every run
	add  bool               // Gorgonia's element-wise add (see isAdd)
	last gorgonia.Value     // the value last bound to node
	own  graphop.Releaser   // the node's op, if it owns its output (Recycle)
	free []graphop.Releaser // Recycle: the ops (and arenas) whose results are dead once this step has run
	// arena, in a recycling program, is the arena the node's output is
	// placed in (graphop.ArenaUser), lent out as a whole: the output
	// may share it with the op's arguments.
	arena *graphop.Arena
}

// Compile returns the program computing roots (nodes of one graph) and
// every op node they depend on. Input nodes (variables and constants)
// are read as they are bound at run time.
func Compile(roots ...*gorgonia.Node) (*Program, error) {
	if len(roots) == 0 {
		return &Program{}, nil
	}
	g := roots[0].Graph()
	for _, r := range roots[1:] {
		if r.Graph() != g {
			return nil, fmt.Errorf("graphexec: roots %v and %v are in different graphs", roots[0], r)
		}
	}
	sorted, err := gorgonia.Sort(g.SubgraphRoots(roots...))
	if err != nil {
		return nil, fmt.Errorf("graphexec: %w", err)
	}
	// Sort puts the roots first; run the leaves first, in reverse, as a
	// TapeMachine does.
	p := &Program{roots: roots}
	for i := len(sorted) - 1; i >= 0; i-- {
		n := sorted[i]
		if n.Op() == nil {
			continue // an input
		}
		if _, ok := n.Op().(constant); ok {
			continue
		}
		var args gorgonia.Nodes
		for it := g.From(n.ID()); it.Next(); {
			args = append(args, it.Node().(*gorgonia.Node))
		}
		p.steps = append(p.steps, step{node: n, args: args, vals: make([]gorgonia.Value, len(args)), add: isAdd(n.Op())})
	}
	return p, nil
}

// constant is the interface of Gorgonia's constant ops, whose nodes have
// a value without being run.
type constant interface {
	gorgonia.Op
	Value() gorgonia.Value
}

// Len returns the number of op nodes the program runs.
func (p *Program) Len() int { return len(p.steps) }

// Split returns the program computing early (and every op node they
// depend on) and the program of the rest of p, each in p's order.
// Running first and then rest computes what p computes, provided nothing
// first reads changes in between.
func (p *Program) Split(early ...*gorgonia.Node) (first, rest *Program) {
	if p.pool != nil {
		panic("graphexec: Split of a recycling program")
	}
	need := map[*gorgonia.Node]bool{}
	for _, n := range early {
		need[n] = true
	}
	in := make([]bool, len(p.steps))
	for i := len(p.steps) - 1; i >= 0; i-- {
		s := &p.steps[i]
		if need[s.node] {
			in[i] = true
			for _, a := range s.args {
				need[a] = true
			}
		}
	}
	first, rest = &Program{}, &Program{}
	for i, s := range p.steps {
		if in[i] {
			first.steps = append(first.steps, s)
		} else {
			rest.steps = append(rest.steps, s)
		}
	}
	return first, rest
}

// bind binds v to the step's node. Our ops hand back the same output
// every run, which stays bound: binding it again would check shapes, an
// allocation per node and run.
func (s *step) bind(v gorgonia.Value) error {
	if v == s.last && s.node.Value() != nil {
		return nil
	}
	if err := gorgonia.UnsafeLet(s.node, v); err != nil {
		return fmt.Errorf("graphexec: %v: %w", s.node.Op(), err)
	}
	s.last = v
	return nil
}

// Reads reports whether a step of the program reads node n.
func (p *Program) Reads(n *gorgonia.Node) bool {
	for _, s := range p.steps {
		for _, a := range s.args {
			if a == n {
				return true
			}
		}
	}
	return false
}

// Run computes every op node of the program once, in order.
func (p *Program) Run() error {
	for i := range p.steps {
		s := &p.steps[i]
		for j, a := range s.args {
			v := a.Value()
			if v == nil {
				return fmt.Errorf("graphexec: %v: argument %d (%v) has no value", s.node.Op(), j, a)
			}
			s.vals[j] = v
		}
		v, err := s.do(p.pool != nil)
		if err != nil {
			return err
		}
		if err := s.bind(v); err != nil {
			return err
		}
		for _, r := range s.free {
			r.ReleaseOutput(p.pool)
		}
	}
	return nil
}

// do computes the step's value from its arguments' (s.vals). In a
// recycling program (Recycle), an op that does not own its output gets no
// last result to write into: that may be a view of a buffer since lent to
// another op.
func (s *step) do(recycling bool) (gorgonia.Value, error) {
	prev := s.node.Value()
	if recycling {
		prev = nil
	}
	if s.add {
		if v, ok := addInto(prev, s.vals); ok {
			return v, nil
		}
	}
	var v gorgonia.Value
	var err error
	// Gorgonia's own ops (the adds that sum a gradient's paths) make
	// a new tensor on every Do; given their last result, they reuse it,
	// unless it shares memory with an argument (an op that returned
	// one of its inputs, or a view of one).
	if pre, ok := s.node.Op().(gorgonia.UsePreallocDoer); ok && reusable(prev, s.vals) {
		v, err = pre.UsePreallocDo(prev, s.vals...)
	} else {
		v, err = s.node.Op().Do(s.vals...)
	}
	if err != nil {
		return nil, fmt.Errorf("graphexec: %v: %w", s.node.Op(), err)
	}
	if s.own != nil && s.arena == nil && overlaps(v, s.vals) {
		return nil, fmt.Errorf("graphexec: %v returned memory of its arguments, not a buffer of its own", s.node.Op())
	}
	return v, nil
}

// reusable reports whether prev, a node's last value, can receive its new
// value: it is a tensor and shares no memory with the arguments.
func reusable(prev gorgonia.Value, args []gorgonia.Value) bool {
	if prev == nil || prev.Shape().IsScalar() {
		return false
	}
	return !overlaps(prev, args)
}

// overlaps reports whether v shares memory with one of args.
func overlaps(v gorgonia.Value, args []gorgonia.Value) bool {
	lo, hi := v.Uintptr(), v.Uintptr()+v.MemSize()
	for _, a := range args {
		alo := a.Uintptr()
		if alo < hi && lo < alo+a.MemSize() {
			return true
		}
	}
	return false
}

// isAdd reports whether op is Gorgonia's element-wise add, with which
// Grad sums the gradients of a node's paths (a dozen a CGAN step). Its
// UsePreallocDo still allocates three times a call, so Run adds those of
// two tensors of one shape itself (addInto): an IEEE add, the same bits.
func isAdd(op gorgonia.Op) bool {
	b, ok := op.(interface{ IsBinary() bool })
	return ok && b.IsBinary() && op.String() == "+ false"
}

// addInto returns a + b for two contiguous float32 or float64 tensors of
// one shape, written into prev when it can take it (see reusable), and
// false for any other arguments.
func addInto(prev gorgonia.Value, args []gorgonia.Value) (gorgonia.Value, bool) {
	if len(args) != 2 {
		return nil, false
	}
	a, ok1 := args[0].(*tensor.Dense)
	b, ok2 := args[1].(*tensor.Dense)
	if !ok1 || !ok2 || !dense(a) || !dense(b) || a.Dtype() != b.Dtype() || !a.Shape().Eq(b.Shape()) || a.Shape().IsScalar() ||
		(a.Dtype() != tensor.Float32 && a.Dtype() != tensor.Float64) {
		return nil, false
	}
	dst, ok := prev.(*tensor.Dense)
	if !ok || !reusable(prev, args) || dst.Dtype() != a.Dtype() || !dst.Shape().Eq(a.Shape()) || !dense(dst) {
		dst = tensor.New(tensor.Of(a.Dtype()), tensor.WithShape(a.Shape().Clone()...))
	}
	if a.Dtype() == tensor.Float32 {
		addSlices(dst.Float32s(), a.Float32s(), b.Float32s())
	} else {
		addSlices(dst.Float64s(), a.Float64s(), b.Float64s())
	}
	return dst, true
}

func dense(t *tensor.Dense) bool { return t.IsNativelyAccessible() && !t.RequiresIterator() }

func addSlices[T float32 | float64](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, v := range a {
		dst[i] = v + b[i]
	}
}
