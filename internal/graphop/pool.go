package graphop

import (
	"gorgonia.org/tensor"
)

// A Pool lends output tensors to the ops of an inference program. Once
// the last reader of a node has run, the program gives the node's output
// buffer back (an op that is a Releaser); the ops that run later take
// their outputs from the pool, so the program holds the largest set of
// results alive at one time rather than every result of the network.
//
// Tensors are kept by element type and number of elements and handed out
// reshaped as asked. A Pool is used by one program's runs, which do not
// overlap; it is not safe for concurrent use.
type Pool struct {
	free map[poolKey][]*tensor.Dense
	out  map[*tensor.Dense]bool // the tensors lent now
	made int64                  // bytes of the tensors the pool has made or taken in
	lent int64                  // bytes lent now
	peak int64                  // most bytes lent at one time
}

type poolKey struct {
	dt   tensor.Dtype
	size int
}

// A Releaser is an op that may return its result in a buffer it keeps
// from run to run (an OutBuf) and give that buffer back to a pool once
// the result is no longer read; its next Do then takes its output from
// the pool.
type Releaser interface {
	// OwnsOutput reports whether the op's result is always in its own
	// buffer: never one of its inputs or a view of one.
	OwnsOutput() bool
	// ReleaseOutput gives the buffer to p, from which the op takes its
	// outputs from now on; only an op that owns its output may release.
	ReleaseOutput(p *Pool)
}

// get returns a tensor of element type dt and the given shape, a free
// one of that size if there is one. Its values are those its last user
// left: the ops write every element of their output. shape is only read
// (OutBuf.Get's callers pass literals, which must stay off the heap).
func (p *Pool) get(dt tensor.Dtype, shape tensor.Shape) *tensor.Dense {
	k := poolKey{dt, shape.TotalSize()}
	var t *tensor.Dense
	if l := p.free[k]; len(l) > 0 {
		t = l[len(l)-1]
		l[len(l)-1] = nil
		p.free[k] = l[:len(l)-1]
		if !t.Shape().Eq(shape) {
			if err := t.Reshape(shape.Clone()...); err != nil {
				panic("graphop: reshaping a pooled tensor: " + err.Error())
			}
		}
	} else {
		t = tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...))
		p.made += bytes(t)
	}
	if p.out == nil {
		p.out = map[*tensor.Dense]bool{}
	}
	p.out[t] = true
	p.lent += bytes(t)
	p.peak = max(p.peak, p.lent)
	return t
}

// put takes t back: a tensor the pool lent, or one an op made before it
// used the pool, which the pool takes in.
func (p *Pool) put(t *tensor.Dense) {
	if p.free == nil {
		p.free = map[poolKey][]*tensor.Dense{}
	}
	if p.out[t] {
		delete(p.out, t)
		p.lent -= bytes(t)
	} else {
		p.made += bytes(t)
	}
	k := poolKey{t.Dtype(), t.Shape().TotalSize()}
	p.free[k] = append(p.free[k], t)
}

func bytes(t *tensor.Dense) int64 { return int64(t.Shape().TotalSize()) * int64(t.Dtype().Size()) }

// Made returns the bytes of all the tensors the pool has made: what it
// holds, lent or free.
func (p *Pool) Made() int64 { return p.made }

// Peak returns the most bytes the pool has had lent at one time.
func (p *Pool) Peak() int64 { return p.peak }
