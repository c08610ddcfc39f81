package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestConcatChainArena: a dense block of one image, whose links and
// activations share an arena (catPlace), gives every node the bits the
// same block gives the first of two copies of the image (batch 2: no
// arena, each link copies), the inner links included, over two runs.
func TestConcatChainArena(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	const c0, gc, h, w = 4, 3, 5, 6
	x0 := make([]float32, c0*h*w)
	for i := range x0 {
		x0[i] = float32(2*r.Float64() - 1)
	}
	g1 := gorgonia.NewGraph()
	var convs []*Conv2d
	for k := range 4 {
		out := gc
		if k == 3 {
			out = c0
		}
		c, err := NewConv2d(g1, "c"+string(rune('0'+k)), c0+k*gc, out, 3, 1, 1, LayerFormats{}, WithSeed(uint64(k+1)))
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, c)
	}
	build := func(g *gorgonia.ExprGraph, batch int) (nodes []*gorgonia.Node) {
		data := make([]float32, 0, batch*len(x0))
		for range batch {
			data = append(data, x0...)
		}
		x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(batch, c0, h, w), tensor.WithBacking(data)), gorgonia.WithName("x"))
		c := x
		for k, conv := range convs {
			if g != g1 {
				conv = conv.Share(g)
			}
			y, err := conv.Fwd(c)
			if err != nil {
				t.Fatal(err)
			}
			if k == 3 {
				return append(nodes, y)
			}
			if y, err = LeakyReLU(y, 0.2); err != nil {
				t.Fatal(err)
			}
			if c, err = Concat(c, y); err != nil {
				t.Fatal(err)
			}
			nodes = append(nodes, y, c)
		}
		return nodes
	}
	one := build(g1, 1)
	g2 := gorgonia.NewGraph()
	two := build(g2, 2)
	var arena *catArena
	for i := 0; i < len(one)-1; i += 2 {
		lop, ok := one[i].Op().(*leakyOp)
		if !ok || lop.slot == nil || (arena != nil && lop.slot.arena != arena) {
			t.Fatalf("batch 1: activation %d is not placed in the chain's arena", i/2)
		}
		arena = lop.slot.arena
	}
	for range 2 {
		run(t, g1)
		run(t, g2)
		for i, n := range one {
			got := n.Value().Data().([]float32)
			want := two[i].Value().Data().([]float32)[:len(got)]
			for j := range got {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("node %d (%v): [%d] = %v, want %v", i, n, j, got[j], want[j])
				}
			}
		}
	}
}
