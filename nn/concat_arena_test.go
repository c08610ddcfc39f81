package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphexec"
)

// denseChain is a dense block of one conv weight set built at a batch
// size: links c1 = [x, a1], c2 = [c1, a2], c3 = [c2, a3] with
// ak = LeakyReLU(conv_k(c_{k-1})), then y = [LeakyReLU(conv4(c3)), a1],
// whose last input is read after the chain's natural end, once two ops of
// the arena's size have taken buffers from the pool.
type denseChain struct {
	x     *gorgonia.Node
	acts  []*gorgonia.Node // a1, a2, a3
	links []*gorgonia.Node // c1, c2, c3
	y     *gorgonia.Node
}

const chainC0, chainGC, chainH, chainW = 4, 3, 6, 7

func newDenseChain(t *testing.T, g *gorgonia.ExprGraph, convs []*Conv2d, batch int) *denseChain {
	t.Helper()
	d := &denseChain{}
	xt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(batch, chainC0, chainH, chainW))
	d.x = gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x"))
	c := d.x
	for k, conv := range convs {
		if conv.W.Graph() != g {
			conv = conv.Share(g)
		}
		y, err := conv.Fwd(c)
		if err != nil {
			t.Fatal(err)
		}
		if k == len(convs)-1 {
			if y, err = LeakyReLU(y, 0.2); err != nil {
				t.Fatal(err)
			}
			if d.y, err = Concat(y, d.acts[0]); err != nil {
				t.Fatal(err)
			}
			return d
		}
		if y, err = LeakyReLU(y, 0.2); err != nil {
			t.Fatal(err)
		}
		if c, err = Concat(c, y); err != nil {
			t.Fatal(err)
		}
		d.acts = append(d.acts, y)
		d.links = append(d.links, c)
	}
	return d
}

// fill sets every image of the input to img.
func (d *denseChain) fill(img []float32) {
	xs := d.x.Value().Data().([]float32)
	for i := 0; i < len(xs); i += len(img) {
		copy(xs[i:], img)
	}
}

// TestConcatArena: a dense block of one image run by a recycling program
// places its links and activations in one arena (graphop.Arena), lent out
// as a whole; its output must have the bits of the same block run as a
// plain program (each link copies, every result kept) and of the first
// of two copies of the image run by a recycling program (batch 2: no
// arena, each link copies, buffers lent on), run after run with new
// inputs. An activation read after the chain's end keeps its value, though
// later ops took buffers from the pool.
func TestConcatArena(t *testing.T) {
	g1 := gorgonia.NewGraph()
	var convs []*Conv2d
	for k := range 4 {
		out := chainGC
		if k == 3 {
			out = chainC0 + 3*chainGC // the arena's size
		}
		c, err := NewConv2d(g1, "c"+string(rune('0'+k)), chainC0+k*chainGC, out, 3, 1, 1, LayerFormats{}, WithSeed(uint64(k+1)))
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, c)
	}
	arena := newDenseChain(t, g1, convs, 1)
	plain := newDenseChain(t, gorgonia.NewGraph(), convs, 1)
	two := newDenseChain(t, gorgonia.NewGraph(), convs, 2)
	compile := func(d *denseChain, recycle bool) *graphexec.Program {
		p, err := graphexec.Compile(d.y)
		if err != nil {
			t.Fatal(err)
		}
		if recycle {
			p.Recycle()
		}
		return p
	}
	pa, pp, p2 := compile(arena, true), compile(plain, false), compile(two, true)

	r := rand.New(rand.NewPCG(28, 3))
	img := make([]float32, chainC0*chainH*chainW)
	for run := range 3 {
		for i := range img {
			img[i] = float32(2*r.Float64() - 1)
		}
		for _, d := range []*denseChain{arena, plain, two} {
			d.fill(img)
		}
		for _, p := range []*graphexec.Program{pa, pp, p2} {
			if err := p.Run(); err != nil {
				t.Fatal(err)
			}
		}
		got := arena.y.Value().Data().([]float32)
		want := plain.y.Value().Data().([]float32)
		copies := two.y.Value().Data().([]float32)[:len(got)]
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(copies[i]) != math.Float32bits(want[i]) {
				t.Fatalf("run %d: [%d] = %v with the arena, %v recycled at batch 2; the plain program's %v", run, i, got[i], copies[i], want[i])
			}
		}
		// The arena was used: each link starts where the previous one
		// does, and each activation lies right after it.
		for k, c := range arena.links {
			v := c.Value().(*tensor.Dense)
			a := arena.acts[k].Value().(*tensor.Dense)
			if k > 0 {
				prev := arena.links[k-1].Value().(*tensor.Dense)
				if v.Uintptr() != prev.Uintptr() {
					t.Errorf("run %d: link %d is not a prefix of link %d", run, k-1, k)
				}
			}
			if a.Uintptr() != v.Uintptr()+v.MemSize()-a.MemSize() {
				t.Errorf("run %d: activation %d is not in its place in link %d", run, k, k)
			}
		}
	}
	// Batch 2 and the plain program use none.
	for _, d := range []*denseChain{plain, two} {
		if d.links[1].Value().Uintptr() == d.links[0].Value().Uintptr() {
			t.Error("a link shares memory without an arena")
		}
	}
}
