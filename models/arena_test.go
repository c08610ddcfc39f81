package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// TestDenseBlockArena: on one image, the inference program of a small
// RRDBNet import places each dense block's concatenations and the
// activations feeding them in one arena lent out as a whole (nn.Concat,
// graphop.Arena); its outputs must have the bits of the copying path with
// recycling on (the same network on two copies of the image: no arena, a
// copy at each link, buffers lent on), of the plain program (copies, every
// result kept) and of gan.Applier, run after run with new inputs, in fp32
// and posit6-deploy.
func TestDenseBlockArena(t *testing.T) {
	cfg := Config{Arch: ESRGANPyTorch, Channels: 3, Height: 32, Width: 32, Features: 8,
		Options: map[string]string{"blocks": "2", "gc": "4", "layout": "basicsr"}}
	for _, pol := range []string{"fp32", "posit6-deploy"} {
		t.Run(pol, func(t *testing.T) {
			p, err := policy.Parse(pol)
			if err != nil {
				t.Fatal(err)
			}
			loaded, _, err := Load(randomTorchCheckpoint(t, "esrgan", cfg), p)
			if err != nil {
				t.Fatal(err)
			}
			shape := []int{1, 3, 12, 12}
			a, err := gan.NewApplier(loaded, GroupG, shape)
			if err != nil {
				t.Fatal(err)
			}
			type prog struct {
				p   *graphexec.Program
				x   []float32
				out *gorgonia.Node
			}
			build := func(batch int, recycle bool) prog {
				g := gorgonia.NewGraph()
				xt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(batch, 3, 12, 12))
				x := gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x"))
				m := loaded.Net(GroupG).Share(g)
				nn.SetTraining(m, loaded.BatchStats)
				out, err := m.Forward(&nn.Pass{FreezeStats: true}, x)
				if err != nil {
					t.Fatal(err)
				}
				prg, err := graphexec.Compile(out)
				if err != nil {
					t.Fatal(err)
				}
				if recycle {
					prg.Recycle()
				}
				return prog{prg, xt.Data().([]float32), out}
			}
			arena, copying, plain := build(1, true), build(2, true), build(1, false)
			r := rand.New(rand.NewPCG(28, 7))
			img := make([]float32, 3*12*12)
			got := make([]float32, a.OutSize())
			for run := range 3 {
				for i := range img {
					img[i] = float32(2*r.Float64() - 1)
				}
				for _, q := range []prog{arena, copying, plain} {
					for i := 0; i < len(q.x); i += len(img) {
						copy(q.x[i:], img)
					}
					if err := q.p.Run(); err != nil {
						t.Fatal(err)
					}
				}
				if err := a.Apply(got, img); err != nil {
					t.Fatal(err)
				}
				want := plain.out.Value().Data().([]float32)
				for name, vs := range map[string][]float32{
					"the arena":                arena.out.Value().Data().([]float32),
					"batch 2, recycled":        copying.out.Value().Data().([]float32)[:len(want)],
					"batch 2's second image":   copying.out.Value().Data().([]float32)[len(want):],
					"gan.Applier (with arena)": got,
				} {
					for i := range want {
						if math.Float32bits(vs[i]) != math.Float32bits(want[i]) {
							t.Fatalf("run %d: %s: value %d is %g, the plain program's %g", run, name, i, vs[i], want[i])
						}
					}
				}
				// The arena was used: 2 RRDBs of 3 dense blocks, each
				// with 3 links that extend the one before.
				if n := prefixLinks(arena.out); n != 2*3*3 {
					t.Errorf("run %d: %d links in place in an earlier link's arena, want 18", run, n)
				}
				if n := prefixLinks(copying.out); n != 0 {
					t.Errorf("run %d: batch 2: %d links share memory with their first input", run, n)
				}
			}
		})
	}
}

// prefixLinks counts the concatenations that root depends on whose value
// starts where their first input's does.
func prefixLinks(root *gorgonia.Node) int {
	g := root.Graph()
	n := 0
	for _, v := range g.AllNodes() {
		if v.Op() == nil || !strings.HasPrefix(v.Op().String(), "Concat(") {
			continue
		}
		it := g.From(v.ID())
		if !it.Next() {
			continue
		}
		first := it.Node().(*gorgonia.Node)
		if first.Value() != nil && v.Value() != nil && first.Value().Uintptr() == v.Value().Uintptr() {
			n++
		}
	}
	return n
}
