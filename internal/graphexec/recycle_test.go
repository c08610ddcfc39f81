package graphexec

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphop"
)

// mixOp returns a + k·b (float32, one shape) in a buffer the op owns: a
// graphop.Releaser, as positgan's layer ops are.
func mixOp(a, b *gorgonia.Node, k float32) (*gorgonia.Node, error) {
	var out graphop.OutBuf
	s := a.Shape().Clone()
	op := &graphop.Func{Name: "mix" + a.Name() + "," + b.Name(), In: []tensor.Shape{s, s}, Out: s, Buf: &out,
		Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := out.Get(tensor.Float32, s)
			ys, as, bs := y.Float32s(), in[0].Float32s(), in[1].Float32s()
			for i := range ys {
				ys[i] = as[i] + k*bs[i]
			}
			return y, nil
		}}
	return gorgonia.ApplyOp(op, a, b)
}

// viewOp returns its input itself: an op that does not own its output,
// as Gorgonia's reshapes and slices may hand out views.
func viewOp(x *gorgonia.Node) (*gorgonia.Node, error) {
	s := x.Shape().Clone()
	return gorgonia.ApplyOp(&graphop.Func{Name: "view" + x.Name(), In: []tensor.Shape{s}, Out: s,
		Fn: func(in []*tensor.Dense) (*tensor.Dense, error) { return in[0], nil }}, x)
}

// block is a small network of the shape of ESRGAN's dense blocks: every
// node feeds later ones, one is read through a view, and the output is
// x plus a scaled mix of everything.
type block struct {
	g        *gorgonia.ExprGraph
	x, y, h3 *gorgonia.Node
}

func newBlock(t *testing.T, n int) *block {
	t.Helper()
	b := &block{g: gorgonia.NewGraph()}
	b.x = gorgonia.NewVector(b.g, tensor.Float32, gorgonia.WithShape(n), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float32, n)))))
	var err error
	must := func(v *gorgonia.Node, e error) *gorgonia.Node {
		t.Helper()
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	h1 := must(mixOp(b.x, b.x, 0.5)) // 1.5x
	h2 := must(mixOp(h1, b.x, -2))   // h1 - 2x
	v := must(viewOp(h1))            // h1, read late through a view
	b.h3 = must(mixOp(h2, h1, 0.25)) // h2 + h1/4
	h4 := must(mixOp(b.h3, h2, 3))   // h3 + 3·h2
	h5 := must(mixOp(h4, v, -0.125)) // h4 - v/8
	b.y = must(mixOp(b.x, h5, 0.2))  // x + 0.2·h5
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fill sets x to values that depend on run.
func (b *block) fill(run int) {
	xs := b.x.Value().Data().([]float32)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(i*3+run*11))) * 4
	}
}

// want computes the block's output from its definition, in float32 as
// the ops round.
func (b *block) want() []uint32 {
	xs := b.x.Value().Data().([]float32)
	out := make([]uint32, len(xs))
	for i, x := range xs {
		h1 := x + 0.5*x
		h2 := h1 + -2*x
		h3 := h2 + 0.25*h1
		h4 := h3 + 3*h2
		h5 := h4 + -0.125*h1
		out[i] = math.Float32bits(x + 0.2*h5)
	}
	return out
}

// TestRecycleSameBits runs one network as a recycling program and as a
// plain one, three times with new inputs, and wants the same bits, those
// of the definition; a kept intermediate node keeps its value.
func TestRecycleSameBits(t *testing.T) {
	const n = 257
	plain, recycled := newBlock(t, n), newBlock(t, n)
	p, err := Compile(plain.y)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Compile(recycled.y)
	if err != nil {
		t.Fatal(err)
	}
	q.Recycle(recycled.h3)
	for run := range 3 {
		plain.fill(run)
		recycled.fill(run)
		if err := p.Run(); err != nil {
			t.Fatal(err)
		}
		if err := q.Run(); err != nil {
			t.Fatal(err)
		}
		want := plain.want()
		if got := bits(plain.y.Value()); !slices.Equal(got, want) {
			t.Fatalf("run %d: the plain program differs from the definition", run)
		}
		if got := bits(recycled.y.Value()); !slices.Equal(got, want) {
			t.Errorf("run %d: the recycling program's output differs from the plain one's", run)
		}
		if got, want := bits(recycled.h3.Value()), bits(plain.h3.Value()); !slices.Equal(got, want) {
			t.Errorf("run %d: the kept node's value differs from the plain program's", run)
		}
	}
	if q.Pool().Peak() >= int64(4*n*5) {
		t.Errorf("peak of %d bytes lent for five intermediate results of %d bytes: nothing was released", q.Pool().Peak(), 4*n)
	}
}

// TestRecyclePeak: along a chain of 60 ops, a recycling program holds two
// results at a time, the chain's input's and output's, rather than 60,
// and does not grow from run to run.
func TestRecyclePeak(t *testing.T) {
	const n, length = 1 << 12, 60
	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(n), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float32, n)))))
	y := x
	for range length {
		var err error
		if y, err = scaleOp(y, 1.0625); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Compile(y)
	if err != nil {
		t.Fatal(err)
	}
	// scaleOp gives no Buf: its results are not its to give.
	p.Recycle()
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if p.Pool().Made() != 0 {
		t.Errorf("ops without a Buf: the pool made %d bytes", p.Pool().Made())
	}

	g = gorgonia.NewGraph()
	x = gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(n), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float32, n)))))
	y = x
	for range length {
		var err error
		if y, err = mixOp(y, x, 0.5); err != nil {
			t.Fatal(err)
		}
	}
	if p, err = Compile(y); err != nil {
		t.Fatal(err)
	}
	p.Recycle()
	const size = 4 * n
	var made int64
	for run := range 3 {
		if err := p.Run(); err != nil {
			t.Fatal(err)
		}
		pool := p.Pool()
		if pool.Peak() != 2*size || pool.Made() != 2*size {
			t.Errorf("run %d: %d bytes lent at most, %d made; want %d (two of %d results of %d bytes)",
				run, pool.Peak(), pool.Made(), 2*size, length, size)
		}
		if run > 0 && pool.Made() != made {
			t.Errorf("run %d: the pool grew from %d to %d bytes", run, made, pool.Made())
		}
		made = pool.Made()
	}
}

// TestRecycleOwnership: an op that says it owns its output but returns
// its input is an error, not a buffer lent twice.
func TestRecycleOwnership(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3}))))
	h, err := mixOp(x, x, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf graphop.OutBuf
	y, err := gorgonia.ApplyOp(&graphop.Func{Name: "liar", In: []tensor.Shape{{3}}, Out: tensor.Shape{3}, Buf: &buf,
		Fn: func(in []*tensor.Dense) (*tensor.Dense, error) { return in[0], nil }}, h)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(y)
	if err != nil {
		t.Fatal(err)
	}
	p.Recycle()
	if err := p.Run(); err == nil || !strings.Contains(err.Error(), "liar") {
		t.Errorf("error %v, want one naming the op that returned its argument", err)
	}
}

// placedMix is mixOp with its output placed in ar at off.
func placedMix(a, b *gorgonia.Node, k float32, ar *graphop.Arena, off int) (*gorgonia.Node, error) {
	y, err := mixOp(a, b, k)
	if err != nil {
		return nil, err
	}
	y.Op().(*graphop.Func).Buf.Place(ar, off, y.Shape().TotalSize())
	return y, nil
}

// TestRecycleArena: ops placed in one graphop.Arena share its memory in a
// recycling program, which takes it from the pool once a run and gives
// it back after the last reader of any of them; a plain program, and a
// recycling one that keeps one of their results, leaves them their own
// buffers. The values are the definition's in every case, run after run.
func TestRecycleArena(t *testing.T) {
	const n = 64
	type net struct {
		x, h1, h2, h3, y *gorgonia.Node
	}
	build := func() net {
		g := gorgonia.NewGraph()
		x := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(n), gorgonia.WithName("x"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float32, n)))))
		ar := graphop.NewArena()
		// A gap of 3 values between the two: apart, two buffers of
		// their own are never 4n+12 bytes apart.
		o1 := ar.Grow(n)
		ar.Grow(3)
		o2 := ar.Grow(n)
		var err error
		must := func(v *gorgonia.Node, e error) *gorgonia.Node {
			t.Helper()
			if e != nil && err == nil {
				err = e
			}
			return v
		}
		h1 := must(placedMix(x, x, 0.5, ar, o1)) // 1.5x
		h2 := must(placedMix(h1, x, -2, ar, o2)) // h1 - 2x
		h3 := must(mixOp(h2, x, 1))              // h2 + x: after this the arena is dead...
		h4 := must(mixOp(h3, h3, 1))             // ...unless h1 is read late
		y := must(mixOp(h4, h1, 0.25))           // h4 + h1/4
		if err != nil {
			t.Fatal(err)
		}
		return net{x, h1, h2, h3, y}
	}
	want := func(xs []float32) []uint32 {
		out := make([]uint32, len(xs))
		for i, x := range xs {
			h1 := x + 0.5*x
			h2 := h1 + -2*x
			h3 := h2 + 1*x
			h4 := h3 + 1*h3
			out[i] = math.Float32bits(h4 + 0.25*h1)
		}
		return out
	}
	for _, c := range []struct {
		name       string
		recycle    bool
		keep       bool // keep h2
		sharesWant bool
	}{
		{"plain", false, false, false},
		{"recycled", true, false, true},
		{"recycled, a result kept", true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := build()
			p, err := Compile(m.y)
			if err != nil {
				t.Fatal(err)
			}
			if c.recycle && c.keep {
				p.Recycle(m.h2)
			} else if c.recycle {
				p.Recycle()
			}
			var made int64
			for run := range 3 {
				xs := m.x.Value().Data().([]float32)
				for i := range xs {
					xs[i] = float32(math.Sin(float64(i*7+run*13))) * 3
				}
				if err := p.Run(); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(bits(m.y.Value()), want(xs)) {
					t.Fatalf("run %d: the output differs from the definition", run)
				}
				v1, v2 := m.h1.Value(), m.h2.Value()
				if shares := v2.Uintptr() == v1.Uintptr()+v1.MemSize()+12; shares != c.sharesWant {
					t.Errorf("run %d: h2 in its place after h1 in the arena: %v, want %v", run, shares, c.sharesWant)
				}
				if c.keep {
					h1 := make([]float32, n)
					for i, x := range xs {
						h1[i] = x + 0.5*x
					}
					h2 := make([]uint32, n)
					for i, x := range xs {
						h2[i] = math.Float32bits(h1[i] + -2*x)
					}
					if !slices.Equal(bits(v2), h2) {
						t.Errorf("run %d: the kept h2 does not hold its value", run)
					}
				}
				if pool := p.Pool(); pool != nil {
					if run > 0 && pool.Made() != made {
						t.Errorf("run %d: the pool grew from %d to %d bytes", run, made, pool.Made())
					}
					made = pool.Made()
				}
			}
		})
	}
}
