package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestLinearBlockedWeights checks float32 Linear layers with block
// formats, whose input-gradient product rounds the weights down their
// columns as it packs them (mmBlockedWeights), against the same layers on
// a backend that takes no such product (matrixCPU: the weights' blocked
// form is rounded whole and multiplied): output and every gradient bit
// for bit, with and without the weight cache, over two runs with a write
// of the weights between them, on sums shorter than a block, of several
// and of more than one of the GEMM's blocks of the sum (600 outputs),
// with weights holding zero rows (zero blocks).
func TestLinearBlockedWeights(t *testing.T) {
	formats := []LayerFormats{
		blockFormats("mxfp8-e4m3", "mxfp8-e4m3", "mxfp8-e5m2"),
		blockFormats("mxfp4-e2m1", "mxfp6-e2m3", "posit(8,1,block=32)"),
		blockFormats("mxfp8-e4m3(block=24)", "mxint8", "mxfp8-e4m3"),
		blockFormats("mxfp6-e2m3", "mxfp4-e2m1", "mxfp6-e3m2"), // every operand rounded in the packing
	}
	for _, sh := range [][3]int{{5, 7, 3}, {64, 130, 600}, {9, 40, 33}} {
		for fi, f := range formats {
			for _, cache := range []bool{false, true} {
				name := fmt.Sprintf("linear %v formats %d cache %v", sh, fi, cache)
				got := runLinearBlocked(t, sh[0], sh[1], sh[2], f, cache)
				old := compute.Current()
				compute.Use(matrixCPU{})
				want := runLinearBlocked(t, sh[0], sh[1], sh[2], f, cache)
				compute.Use(old)
				for r := range want {
					for i, what := range []string{"y", "dx", "dw", "db"} {
						for j := range want[r][i] {
							if math.Float32bits(got[r][i][j]) != math.Float32bits(want[r][i][j]) {
								t.Fatalf("%s run %d: %s[%d] = %#x, want %#x", name, r, what, j, math.Float32bits(got[r][i][j]), math.Float32bits(want[r][i][j]))
							}
						}
					}
				}
			}
		}
	}
}

// runLinearBlocked runs a float32 Linear (n × in → out) with formats f on
// fixed random data twice, writing its weights between the runs, and
// returns each run's output and gradients for the loss Σ y·c.
func runLinearBlocked(t *testing.T, n, in, out int, f LayerFormats, cache bool) [][][]float32 {
	t.Helper()
	g := gorgonia.NewGraph()
	rng := rand.New(rand.NewPCG(30, 99))
	l, err := NewLinear(g, "fc", in, out, f, WithDtype(tensor.Float32), WithSeed(6))
	if err != nil {
		t.Fatal(err)
	}
	CacheWeights(&quantLayer{name: "fc", lin: l}, cache)
	w := l.W.Value().Data().([]float32)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.1)
		if (i/in)%5 == 2 {
			w[i] = 0 // zero rows: zero blocks down the columns
		}
	}
	x := gorgonia.NodeFromAny(g, newParam(tensor.Float32, []int{n, in}, func(int) float64 { return rng.NormFloat64() }), gorgonia.WithName("x"))
	y, err := l.Fwd(x)
	if err != nil {
		t.Fatal(err)
	}
	flat := must(gorgonia.Reshape(y, tensor.Shape{n * out}))
	cv := gorgonia.NodeFromAny(g, newParam(tensor.Float32, []int{n * out}, func(int) float64 { return rng.NormFloat64() }), gorgonia.WithName("c"))
	loss := must(gorgonia.Sum(must(gorgonia.HadamardProd(flat, cv))))
	grads, err := gorgonia.Grad(loss, x, l.W, l.B)
	if err != nil {
		t.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	var res [][][]float32
	for run := range 2 {
		if run > 0 {
			for i := range w {
				w[i] *= -1.5
			}
			l.roles.wc.changed()
		}
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		r := [][]float32{append([]float32(nil), y.Value().Data().([]float32)...)}
		for _, gn := range grads {
			r = append(r, append([]float32(nil), gn.Value().Data().([]float32)...))
		}
		res = append(res, r)
		m.Reset()
	}
	return res
}

// TestLinearBlockedFresh checks that where the GEMM rounds mxfp8's
// panels with a vector kernel a Linear layer reads no cached blocked form
// of its weights: a write not reported with Param.Changed is seen at once
// (the products round the weights as they pack them), with the bits of
// an uncached layer; TestWeightCacheStale checks the cache where it is
// used (blocks of 4 and 3).
func TestLinearBlockedFresh(t *testing.T) {
	if !compute.PacksBlocks(compute.NewBlockRounder(quant.MustParseBlock("mxfp8-e4m3"), quant.Nearest, nil)) {
		t.Skip("no vector kernel for packed panels at this level")
	}
	l := cacheLayers[0]
	f := blockFormats("mxfp8-e4m3", "mxfp8-e4m3", "mxfp8-e5m2")
	off, on := newTwoGraphs(t, l, f, false), newTwoGraphs(t, l, f, true)
	on.run(t, 0, true, false) // written, not reported
	off.run(t, 0, true, false)
	if a, b := on.run(t, 1, false, false), off.run(t, 1, false, false); !slices.Equal(a, b) {
		t.Fatal("a Linear layer's blocked weights were read from the cache")
	}
}
