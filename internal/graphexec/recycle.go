package graphexec

import (
	"slices"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/internal/graphop"
)

// Recycle makes p an inference program whose op nodes hold their results
// only while they are read. An op that owns its output buffer (a
// graphop.Releaser: positgan's layer ops) gives it back to a pool the
// program keeps once the last step reading the node has run, and the ops
// that run later take their outputs from that pool: a run then holds the
// largest set of results alive at one time rather than every result of
// the network, as a TapeMachine or a training program does (the backward
// pass reads the forward results). The values computed do not change:
// every op writes all of its output before anything reads it.
//
// After a run only the values of p's roots and of the keep nodes may be
// read; the other nodes' values are buffers lent on. So Recycle is for
// programs of graphs without a backward pass whose callers read only
// what they name (gan's Sampler and Applier, the deployment runner); a
// training program never recycles. A node whose op does not own its
// output (one of Gorgonia's, which may return a view of an argument)
// keeps its arguments' buffers alive as long as itself. Ops whose
// outputs are placed in one graphop.Arena (a dense block's chain of
// concatenations) share it: the arena is taken from the pool when the
// first of them runs and given back after the last reader of any of
// them, and until Recycle it is not used. A recycling program cannot be
// Split.
func (p *Program) Recycle(keep ...*gorgonia.Node) {
	if p.pool != nil {
		return
	}
	p.pool = &graphop.Pool{}
	const forever = 1<<31 - 1
	index := make(map[*gorgonia.Node]int, len(p.steps))
	last := make([]int, len(p.steps)) // the last step reading each step's node
	for i := range p.steps {
		s := &p.steps[i]
		index[s.node] = i
		last[i] = i
		s.own, s.free, s.arena = nil, nil, nil
		if r, ok := s.node.Op().(graphop.Releaser); ok && r.OwnsOutput() {
			s.own = r
			if u, ok := r.(graphop.ArenaUser); ok {
				s.arena = u.OutputArena()
			}
		}
	}
	for _, n := range slices.Concat(keep, p.roots) {
		if i, ok := index[n]; ok {
			last[i] = forever
		}
	}
	// Backwards, so that a step's last reader is known when the step is
	// reached: all of them come after it.
	for j := len(p.steps) - 1; j >= 0; j-- {
		s := &p.steps[j]
		until := j
		if s.own == nil {
			until = max(j, last[j]) // the value may be a view of an argument
		}
		for _, a := range s.args {
			if i, ok := index[a]; ok {
				last[i] = max(last[i], until)
			}
		}
	}
	// An arena is lent out once the last reader of any of its ops has
	// run; one holding a result read after the run is not used at all,
	// and its ops keep buffers of their own.
	arenaEnd := map[*graphop.Arena]int{}
	for i := range p.steps {
		if a := p.steps[i].arena; a != nil {
			arenaEnd[a] = max(arenaEnd[a], last[i])
		}
	}
	for i := range p.steps {
		s := &p.steps[i]
		if s.arena != nil && arenaEnd[s.arena] == forever {
			s.arena = nil
		}
	}
	for i := range p.steps {
		s := &p.steps[i]
		if s.own == nil || last[i] == forever {
			continue
		}
		if s.arena == nil {
			r := &p.steps[last[i]]
			r.free = append(r.free, s.own)
		}
		// From now on the op takes its output from the pool (or its
		// arena): a buffer it has from earlier runs goes there.
		s.own.ReleaseOutput(p.pool)
	}
	for i := range p.steps {
		a := p.steps[i].arena
		end, ok := arenaEnd[a]
		if !ok {
			continue
		}
		delete(arenaEnd, a) // once, at its first op
		r := &p.steps[end]
		r.free = append(r.free, a)
		a.ReleaseOutput(p.pool)
	}
}

// Pool returns the pool of a recycling program (Recycle), nil for another
// one: its Peak is the most bytes of results alive at one time in a run,
// its Made the bytes it holds.
func (p *Program) Pool() *graphop.Pool { return p.pool }
