package graphop

import (
	"fmt"

	"gorgonia.org/tensor"
)

// An Arena is one float32 buffer whose parts hold the outputs of several
// ops: a chain of concatenations of one image, as a dense block builds
// ([x, x1], then [x, x1, x2], …), places each link's output as a prefix of
// the next one's and the op feeding a link in its place there, so that no
// link copies what an earlier one holds. Each part is written by one op,
// once a run, before anything reads it.
//
// Parts are claimed while the graph is built (Grow; OutBuf.Place). An
// arena is used only in an inference program (graphexec's Recycle), which
// lends it out as a whole: it takes its buffer from the program's Pool
// when the first of its ops runs and gives it back after the last reader
// of any of them. Elsewhere (training, a TapeMachine, a plain program) the
// placed ops write into their own buffers and the links copy, as if there
// were no arena: the values are the same either way.
type Arena struct {
	shape tensor.Shape  // (size): the pool's key, kept so that get does not allocate
	buf   *tensor.Dense // the memory, while a run holds it
	pool  *Pool         // set by ReleaseOutput: the arena is in use
}

// NewArena returns an empty arena.
func NewArena() *Arena { return &Arena{shape: tensor.Shape{0}} }

// Size returns the number of float32 values claimed.
func (a *Arena) Size() int { return a.shape[0] }

// Grow claims n more values at the end of the arena and returns where
// they start. An arena in use (Lent) grows no more.
func (a *Arena) Grow(n int) int {
	if a.Lent() {
		panic("graphop: growing an arena in use")
	}
	off := a.shape[0]
	a.shape[0] += n
	return off
}

// Lent reports whether an inference program lends the arena out, so that
// its placed ops write into it; it can then not grow.
func (a *Arena) Lent() bool { return a.pool != nil }

// OwnsOutput reports true: the arena's memory is its own (see Releaser).
func (a *Arena) OwnsOutput() bool { return true }

// ReleaseOutput gives the arena's buffer, if it holds one, to p, from
// which it takes its memory from now on: its placed ops then write into
// it. graphexec's Recycle calls it once the last reader of the arena's
// ops has run.
func (a *Arena) ReleaseOutput(p *Pool) {
	a.pool = p
	if a.buf != nil {
		p.put(a.buf)
		a.buf = nil
	}
}

// memory returns the arena's buffer, taken from the pool if the arena
// holds none.
func (a *Arena) memory() *tensor.Dense {
	if a.buf == nil {
		a.buf = a.pool.get(tensor.Float32, a.shape)
	}
	return a.buf
}

// slot is an OutBuf's place in an arena: values off … off+n.
type slot struct {
	arena  *Arena
	off, n int
	mem    *tensor.Dense // the arena buffer view was made on
	view   *tensor.Dense
}

// get returns the slot as a float32 tensor of the given shape (of n
// values), a view of the arena's memory. The view is made again only when
// the arena's buffer or the shape changes: a program whose pool hands the
// arena the same buffer every run allocates nothing.
func (s *slot) get(shape tensor.Shape) *tensor.Dense {
	m := s.arena.memory()
	if s.mem != m || !s.view.Shape().Eq(shape) {
		s.view = tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(m.Float32s()[s.off:s.off+s.n]))
		s.mem = m
	}
	return s.view
}

// Place puts the buffer's float32 results in a's values off … off+n
// while a is lent out (Arena); otherwise, and for results of another size
// or element type, Get hands out the buffer's own tensors as before. A
// buffer is placed once.
func (o *OutBuf) Place(a *Arena, off, n int) {
	if o.slot != nil {
		panic("graphop: placing a buffer already placed")
	}
	if off < 0 || n < 0 || off+n > a.Size() {
		panic(fmt.Sprintf("graphop: placing %d values at %d in an arena of %d", n, off, a.Size()))
	}
	o.slot = &slot{arena: a, off: off, n: n}
}

// Placed returns the arena the buffer is placed in (nil if none) and
// where: values off … off+n.
func (o *OutBuf) Placed() (a *Arena, off, n int) {
	if o.slot == nil {
		return nil, 0, 0
	}
	return o.slot.arena, o.slot.off, o.slot.n
}

// InArena reports whether the buffer's float32 results now live in its
// arena: it is placed in one that is lent out.
func (o *OutBuf) InArena() bool { return o.slot != nil && o.slot.arena.Lent() }

// An ArenaUser is an op whose output may be placed in an Arena. An
// inference program lends the arena out as a whole, after the last reader
// of any of its ops, rather than the op's own buffer.
type ArenaUser interface {
	// OutputArena returns the arena the op's output is placed in, or nil.
	OutputArena() *Arena
}

// OutputArena returns the arena Buf is placed in, or nil (see ArenaUser).
func (o *Func) OutputArena() *Arena {
	if o.Buf == nil || o.ScalarOut {
		return nil
	}
	a, _, _ := o.Buf.Placed()
	return a
}
