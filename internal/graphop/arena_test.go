package graphop

import (
	"testing"

	"gorgonia.org/tensor"
)

// TestArenaPlace: a buffer placed in an arena hands out its own tensors
// until the arena is lent out, then views of the arena's memory at its
// place, the same view while the pool hands the arena the same memory;
// other element types and sizes keep their own buffers. A lent arena
// does not grow, and a buffer is placed once, within the arena.
func TestArenaPlace(t *testing.T) {
	a := NewArena()
	var b1, b2 OutBuf
	b1.Place(a, a.Grow(6), 6)
	b2.Place(a, a.Grow(4), 4)
	if a.Size() != 10 {
		t.Fatalf("size %d, want 10", a.Size())
	}
	own := b2.Get(tensor.Float32, tensor.Shape{2, 2})
	if b2.InArena() {
		t.Error("in the arena before it is lent out")
	}
	var p Pool
	b2.Release(&p)
	a.ReleaseOutput(&p)
	v1 := b1.Get(tensor.Float32, tensor.Shape{2, 3})
	v2 := b2.Get(tensor.Float32, tensor.Shape{2, 2})
	if !b2.InArena() || v2 == own {
		t.Fatal("not in the arena once lent out")
	}
	if v2.Uintptr() != v1.Uintptr()+24 || v1.Shape()[1] != 3 || v2.Shape()[1] != 2 {
		t.Errorf("views at %#x %v and %#x %v, want the second 24 bytes after the first", v1.Uintptr(), v1.Shape(), v2.Uintptr(), v2.Shape())
	}
	if p.Made() != 4*4+4*10 || p.Peak() != 4*10 {
		t.Errorf("pool made %d bytes, peak %d; want %d (b2's own and the arena) and %d", p.Made(), p.Peak(), 4*4+4*10, 4*10)
	}
	a.ReleaseOutput(&p)
	if got := b1.Get(tensor.Float32, tensor.Shape{2, 3}); got != v1 {
		t.Error("a new view of the same memory")
	}
	if b1.Get(tensor.Float64, tensor.Shape{2, 3}) == nil || b1.Get(tensor.Float32, tensor.Shape{7}).Uintptr() == v1.Uintptr() {
		t.Error("a float64 result or one of another size in the arena")
	}
	for name, f := range map[string]func(){
		"grow a lent arena": func() { a.Grow(1) },
		"place twice":       func() { b1.Place(NewArena(), 0, 0) },
		"place past the end": func() {
			var b OutBuf
			b.Place(a, 8, 4)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
