package graphop

import (
	"testing"

	"gorgonia.org/tensor"
)

// An OutBuf released to a Pool gives its tensor back and takes the next
// from the pool: another OutBuf then gets the same memory, reshaped, for a
// result of the same element type and size, and a new one for another
// size. The pool counts what it holds and the most it had lent at once.
func TestPoolLendsReleasedBuffers(t *testing.T) {
	var p Pool
	var a, b, c OutBuf
	ta := a.Get(tensor.Float32, tensor.Shape{2, 6}) // made before a used the pool
	a.Release(&p)
	if got := p.Made(); got != 48 {
		t.Errorf("after taking in a 12-value tensor the pool holds %d bytes, want 48", got)
	}
	b.Release(&p) // nothing to give yet: b now takes from the pool
	tb := b.Get(tensor.Float32, tensor.Shape{3, 4})
	if tb != ta || !tb.Shape().Eq(tensor.Shape{3, 4}) {
		t.Errorf("b got %p of shape %v, want a's tensor %p reshaped to (3, 4)", tb, tb.Shape(), ta)
	}
	if again := b.Get(tensor.Float32, tensor.Shape{3, 4}); again != tb {
		t.Error("a second Get of one shape handed out another tensor")
	}
	c.Release(&p)
	tc := c.Get(tensor.Float32, tensor.Shape{12}) // the pool has none free
	if tc == tb {
		t.Error("a lent tensor was lent again")
	}
	td := c.Get(tensor.Float64, tensor.Shape{5}) // another element type: another buffer
	if p.Made() != 48+48+40 || p.Peak() != 48+48+40 {
		t.Errorf("made %d, peak %d; want %d and %d", p.Made(), p.Peak(), 136, 136)
	}
	b.Release(&p)
	c.Release(&p)
	if p.Peak() != 136 || p.Made() != 136 {
		t.Errorf("after releasing all: made %d, peak %d; want both 136", p.Made(), p.Peak())
	}
	if got := a.Get(tensor.Float64, tensor.Shape{5, 1}); got != td {
		t.Error("a released float64 tensor was not lent again for the same size")
	}
}

// Func and Map are Releasers: a Func with Buf set owns its output, one
// without or with ScalarOut does not; a Map always does.
func TestReleasers(t *testing.T) {
	var buf OutBuf
	for _, c := range []struct {
		name string
		op   Releaser
		want bool
	}{
		{"Func with Buf", &Func{Buf: &buf}, true},
		{"Func without Buf", &Func{}, false},
		{"Func with Buf and ScalarOut", &Func{Buf: &buf, ScalarOut: true}, false},
		{"Map", cube(), true},
	} {
		if got := c.op.OwnsOutput(); got != c.want {
			t.Errorf("%s: OwnsOutput %v, want %v", c.name, got, c.want)
		}
	}
}
