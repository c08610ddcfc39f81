package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// cacheFormats are the layer formats the weight-cache tests run under:
// element-wise formats, block formats (whose forward and backward
// products block the weights along different axes), float32, the quire,
// stochastic rounding (never cached) and an N:M weight mask (not cached:
// masked afresh at every read).
func cacheFormats() map[string]LayerFormats {
	p8 := Quantizer{Format: quant.MustParse("posit(8,1)")}
	p8s := Quantizer{Format: quant.MustParse("posit(8,1)"), Rounding: quant.Stochastic}
	fp8 := Quantizer{Format: quant.MustParse("fp8-e4m3")}
	blk := func(s string) Quantizer { return Quantizer{Block: quant.MustParseBlock(s)} }
	return map[string]LayerFormats{
		"posit8": {Weight: p8, Act: p8, Out: p8, Err: p8, WGrad: p8},
		"fp8":    {Weight: fp8, Act: fp8, Out: p8, Err: fp8, WGrad: p8},
		"mxfp8": {Weight: blk("mxfp8-e4m3(block=4)"), Act: blk("mxfp8-e4m3(block=4)"), Out: p8,
			Err: blk("mxfp8-e5m2(block=3)"), WGrad: p8},
		"fp32":       {},
		"quire":      {Weight: p8, Act: p8, Out: p8, Err: p8, WGrad: p8, Accum: quant.AccumQuire},
		"stochastic": {Weight: p8s, Act: p8s, Out: p8s, Err: p8s, WGrad: p8s},
		"sparse":     {Weight: p8, Act: p8, Out: p8, Err: p8, WGrad: p8, Sparsity: Sparsity{Weight: sparsity.Pattern{N: 2, M: 4}}},
	}
}

// cacheLayer is one kind of quantized layer for the cache tests: a
// builder and its input shape.
type cacheLayer struct {
	name  string
	build func(s *Scope) Module
	in    []int
}

var cacheLayers = []cacheLayer{
	{"linear", func(s *Scope) Module { return s.Linear("l", 12, 8) }, []int{3, 12}},
	{"conv", func(s *Scope) Module { return s.Conv("c", 4, 6, 3, 1, 1) }, []int{2, 4, 5, 5}},
	{"convtranspose", func(s *Scope) Module { return s.ConvTranspose("t", 4, 6, 4, 2, 1) }, []int{2, 4, 3, 3}},
}

// twoGraphs is a layer trained as a GAN's discriminator is: the copy in
// graph 1 is applied twice (real and fake), the copy in graph 2 once,
// and after each graph runs its gradients update the shared weights.
type twoGraphs struct {
	net    Module
	vms    [2]gorgonia.VM
	outs   [2][]*gorgonia.Node // the outputs of each graph
	params [2][]Param
	grads  [2][]*gorgonia.Node // of the params, then of the inputs
}

func newTwoGraphs(t *testing.T, l cacheLayer, f LayerFormats, cache bool) *twoGraphs {
	t.Helper()
	s := NewScope(gorgonia.NewGraph(), func(string) LayerFormats { return f }, 7)
	tg := &twoGraphs{net: l.build(s)}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	CacheWeights(tg.net, cache)
	rng := rand.New(rand.NewPCG(3, 4))
	for i, uses := range []int{2, 1} {
		g := gorgonia.NewGraph()
		m := tg.net.Share(g)
		var loss *gorgonia.Node
		var xs gorgonia.Nodes
		for u := range uses {
			x := input32(g, fmt.Sprintf("x%d", u), l.in, rng)
			xs = append(xs, x)
			y, err := m.Forward(nil, x)
			if err != nil {
				t.Fatal(err)
			}
			tg.outs[i] = append(tg.outs[i], y)
			c := input32(g, fmt.Sprintf("c%d", u), y.Shape(), rng)
			p := must(gorgonia.HadamardProd(y, c))
			if s := must(gorgonia.Sum(p)); loss == nil {
				loss = s
			} else {
				loss = must(gorgonia.Add(loss, s))
			}
		}
		tg.params[i] = m.Params()
		nodes := make(gorgonia.Nodes, len(tg.params[i]))
		for j, p := range tg.params[i] {
			nodes[j] = p.Node
		}
		// The inputs' gradients too: the backward product that reads
		// the weights.
		var err error
		if tg.grads[i], err = gorgonia.Grad(loss, append(nodes, xs...)...); err != nil {
			t.Fatal(err)
		}
		tg.vms[i] = gorgonia.NewTapeMachine(g)
		t.Cleanup(func() { tg.vms[i].Close() })
	}
	return tg
}

// input32 returns a float32 input node of shape holding values of a
// normal distribution, exactly representable in float32.
func input32(g *gorgonia.ExprGraph, name string, shape []int, rng *rand.Rand) *gorgonia.Node {
	return gorgonia.NodeFromAny(g, newParam(tensor.Float32, shape, func(int) float64 { return float64(float32(rng.NormFloat64())) }), gorgonia.WithName(name))
}

func must(n *gorgonia.Node, err error) *gorgonia.Node {
	if err != nil {
		panic(err)
	}
	return n
}

// run runs graph i and returns the bits of its outputs and gradients;
// then, if update, it takes a gradient step on the weights in place and,
// if report, reports the write (Param.Changed).
func (tg *twoGraphs) run(t *testing.T, i int, update, report bool) []uint32 {
	t.Helper()
	vm := tg.vms[i]
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	vm.Reset()
	var bits []uint32
	for _, n := range slices.Concat(tg.outs[i], tg.grads[i]) {
		for _, v := range n.Value().Data().([]float32) {
			bits = append(bits, math.Float32bits(v))
		}
	}
	if update {
		for j, p := range tg.params[i] {
			w, g := p.Data(), tg.grads[i][j].Value().Data().([]float32)
			for k := range w {
				w[k] -= 0.05 * g[k]
			}
			if report {
				p.Changed()
			}
		}
	}
	return bits
}

// TestWeightCacheBits trains each kind of layer under each format for
// several steps through two graphs (copies made by Share) with and
// without the cache of rounded weights, and wants the same bits for
// every output and gradient.
func TestWeightCacheBits(t *testing.T) {
	for _, l := range cacheLayers {
		for name, f := range cacheFormats() {
			t.Run(l.name+"/"+name, func(t *testing.T) {
				off, on := newTwoGraphs(t, l, f, false), newTwoGraphs(t, l, f, true)
				for step := range 4 {
					for i := range 2 {
						if a, b := on.run(t, i, true, true), off.run(t, i, true, true); !slices.Equal(a, b) {
							t.Fatalf("step %d graph %d: cached and uncached bits differ", step, i+1)
						}
					}
				}
			})
		}
	}
}

// TestWeightCacheStale checks that the cache can be read stale, so that
// TestWeightCacheBits can fail: weights written without Param.Changed
// are rounded as they were before the write (with rounding that differs
// from the write's). A cache that is never read, or always refreshed,
// fails it.
func TestWeightCacheStale(t *testing.T) {
	f := cacheFormats()
	for _, l := range cacheLayers {
		for _, name := range []string{"posit8", "mxfp8"} {
			t.Run(l.name+"/"+name, func(t *testing.T) {
				off, on := newTwoGraphs(t, l, f[name], false), newTwoGraphs(t, l, f[name], true)
				on.run(t, 0, true, false) // written, not reported
				off.run(t, 0, true, false)
				if a, b := on.run(t, 1, false, false), off.run(t, 1, false, false); slices.Equal(a, b) {
					t.Fatal("a write not reported left the cached bits equal to fresh ones")
				}
				on.params[1][0].Changed()
				if a, b := on.run(t, 1, false, false), off.run(t, 1, false, false); !slices.Equal(a, b) {
					t.Fatal("after Changed the cached bits differ from fresh ones")
				}
			})
		}
	}
}

// TestWeightCacheInvalidation checks each kind of change a layer's
// cached weights must follow: a write reported through any copy's Param
// (an optimiser step, a checkpoint load, a weight import: all write
// through Data), turning caching off and on, and a new mask step of an
// N:M mask, whose layers read the weights masked afresh.
func TestWeightCacheInvalidation(t *testing.T) {
	l, f := cacheLayers[0], cacheFormats()
	t.Run("write", func(t *testing.T) {
		off, on := newTwoGraphs(t, l, f["posit8"], false), newTwoGraphs(t, l, f["posit8"], true)
		for _, tg := range []*twoGraphs{off, on} {
			tg.run(t, 0, false, false)
			// A load: new values, reported through the other graph's copy.
			rng := rand.New(rand.NewPCG(9, 9))
			w := tg.params[1][0].Data()
			for k := range w {
				w[k] = float32(rng.NormFloat64() / 4)
			}
			tg.params[1][0].Changed()
		}
		if a, b := on.run(t, 0, false, false), off.run(t, 0, false, false); !slices.Equal(a, b) {
			t.Fatal("a write reported through another copy's Param was not seen")
		}
	})
	t.Run("toggle", func(t *testing.T) {
		off, on := newTwoGraphs(t, l, f["posit8"], false), newTwoGraphs(t, l, f["posit8"], true)
		for _, tg := range []*twoGraphs{off, on} {
			tg.run(t, 0, true, false)
		}
		// Writes made while caching was off are not reported; turning it
		// on again drops what it held.
		CacheWeights(on.net, false)
		on.run(t, 0, true, false)
		off.run(t, 0, true, false)
		CacheWeights(on.net, true)
		if a, b := on.run(t, 1, false, false), off.run(t, 1, false, false); !slices.Equal(a, b) {
			t.Fatal("turning the cache on again read what it held before")
		}
	})
	t.Run("mask", func(t *testing.T) {
		sf := f["sparse"]
		sf.Sparsity.Score = "random"
		off, on := newTwoGraphs(t, l, sf, false), newTwoGraphs(t, l, sf, true)
		for step := range 3 {
			for _, tg := range []*twoGraphs{off, on} {
				for _, m := range Masks(tg.net) {
					m.SetStep(5, step) // random scores: a new mask each step
				}
			}
			if a, b := on.run(t, 0, false, false), off.run(t, 0, false, false); !slices.Equal(a, b) {
				t.Fatalf("step %d: masked weights differ with the cache", step)
			}
		}
	})
}

// TestWeightCacheMidRun checks that a backward whose forward read cached
// weights that were rounded again since (the weights written between
// them, and read by another node) panics instead of reading weights its
// forward did not.
func TestWeightCacheMidRun(t *testing.T) {
	s := NewScope(gorgonia.NewGraph(), func(string) LayerFormats { return cacheFormats()["posit8"] }, 7)
	l := s.Linear("l", 12, 8).(*quantLayer).lin
	CacheWeights(&quantLayer{name: "l", lin: l}, true)
	x := newParam(tensor.Float32, []int{3, 12}, func(i int) float64 { return float64(i%5) / 4 })
	w := l.W.Value().(*tensor.Dense)
	a, b := &linState{l: l, batch: 3, xShape: tensor.Shape{3, 12}}, &linState{l: l, batch: 3, xShape: tensor.Shape{3, 12}}
	if _, err := a.forward([]*tensor.Dense{x, w}); err != nil {
		t.Fatal(err)
	}
	dy := newParam(tensor.Float32, []int{3, 8}, func(i int) float64 { return 1 })
	a.backX(dy) // the same version: fine
	w.Float32s()[0] += 1
	l.roles.wc.changed()
	if _, err := b.forward([]*tensor.Dense{x, w}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "rounded again") {
			t.Fatalf("backward after the cache was rounded again: recovered %v, want a panic", r)
		}
	}()
	a.backX(dy)
}
