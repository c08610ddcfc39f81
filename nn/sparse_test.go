package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// refMask is the N:M mask from the definition, written apart from package
// sparsity: the weights as a rows × cols matrix, blocks of m consecutive
// values along the rows (or, down the columns), in each the n values of
// largest magnitude kept, ties to the lower index; a partial block keeps
// min(n, its length).
func refMask(w []float64, rows, cols int, column bool, n, m int) []bool {
	keep := make([]bool, len(w))
	lines, length := rows, cols
	if column {
		lines, length = cols, rows
	}
	for l := 0; l < lines; l++ {
		for b := 0; b < length; b += m {
			var idx []int
			for p := b; p < b+m && p < length; p++ {
				if column {
					idx = append(idx, p*cols+l)
				} else {
					idx = append(idx, l*cols+p)
				}
			}
			sort.SliceStable(idx, func(i, j int) bool { return math.Abs(w[idx[i]]) > math.Abs(w[idx[j]]) })
			for k := 0; k < n && k < len(idx); k++ {
				keep[idx[k]] = true
			}
		}
	}
	return keep
}

// weightDims returns the weights of a layer case as the mask sees them.
func weightDims(lc layerCase, w *gorgonia.Node) (rows, cols int, column bool) {
	s := w.Shape()
	rows, cols = s[0], s.TotalSize()/s[0]
	return rows, cols, strings.HasPrefix(lc.name, "convT")
}

func masked(w []float64, keep []bool) []float64 {
	d := make([]float64, len(w))
	for i := range w {
		if keep[i] {
			d[i] = w[i]
		}
	}
	return d
}

// TestSparseLayerReference runs each layer with posit(8,1) formats and an
// N:M weight mask (and in one variant a 1:2 gradient mask) on float64 data
// and compares output and gradients bit for bit with the definition: the
// reference layer of conv_test.go on the masked weights (mask from
// refMask on the master values, then rounded), the weight gradient masked
// by the same mask, then by the gradient's own mask.
func TestSparseLayerReference(t *testing.T) {
	p8 := quant.MustParse("posit(8,1)")
	w8, _ := quant.Scale(p8, 3)
	e8, _ := quant.Scale(p8, -2)
	base := LayerFormats{Weight: Quantizer{Format: w8}, Act: Quantizer{Format: p8}, Out: Quantizer{Format: p8},
		Err: Quantizer{Format: e8}, WGrad: Quantizer{Format: w8}}
	for _, sc := range []struct{ w, g sparsity.Pattern }{
		{sparsity.Pattern{N: 1, M: 2}, sparsity.Pattern{}},
		{sparsity.Pattern{N: 2, M: 4}, sparsity.Pattern{}},
		{sparsity.Pattern{N: 3, M: 8}, sparsity.Pattern{}},
		{sparsity.Pattern{N: 2, M: 4}, sparsity.Pattern{N: 1, M: 2}},
		{sparsity.Pattern{}, sparsity.Pattern{N: 1, M: 4}},
	} {
		f := base
		f.Sparsity = Sparsity{Weight: sc.w, Grad: sc.g}
		for _, lc := range layerCases {
			name := lc.name + " " + sc.w.String() + "/" + sc.g.String()
			g := gorgonia.NewGraph()
			rng := rand.New(rand.NewPCG(21, 22))
			fwd, ps, err := lc.build(g, f, WithDtype(tensor.Float64), WithSeed(9))
			if err != nil {
				t.Fatal(err)
			}
			fillRand(ps[1].Value().Data().([]float64), rng)
			x := input(g, "x", lc.in, normal(rng))
			y, err := fwd(x)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := dotLoss(y, rng)
			if err != nil {
				t.Fatal(err)
			}
			grads, err := gorgonia.Grad(loss, append(gorgonia.Nodes{x}, ps...)...)
			if err != nil {
				t.Fatal(err)
			}
			run(t, g)
			var c []float64
			for _, n := range g.AllNodes() {
				if n.Name() == "c" {
					c = n.Value().Data().([]float64)
				}
			}
			q := func(f quant.Format, s []float64) []float64 {
				d := make([]float64, len(s))
				for i, v := range s {
					d[i] = f.Round64(v)
				}
				return d
			}
			xv, wv, bv := x.Value().Data().([]float64), ps[0].Value().Data().([]float64), ps[1].Value().Data().([]float64)
			rows, cols, column := weightDims(lc, ps[0])
			keep := refMask(wv, rows, cols, column, max(sc.w.N, 1), max(sc.w.M, 1))
			yRef, back := lc.ref(q(p8, xv), q(w8, masked(wv, keep)), bv, lc.in)
			dx, dw, db := back(q(e8, c))
			dw = masked(q(w8, dw), keep)
			if !sc.g.IsDense() {
				dw = masked(dw, refMask(dw, rows, cols, column, sc.g.N, sc.g.M))
				if !sparsity.Conforms(dw, rows, cols, sc.g, map[bool]sparsity.Axis{false: sparsity.AlongRow, true: sparsity.AlongColumn}[column]) {
					t.Fatalf("%s: reference gradient does not conform", name)
				}
			}
			want := [][]float64{q(p8, yRef), q(e8, dx), dw, q(w8, db)}
			got := [][]float64{y.Value().Data().([]float64)}
			for _, gn := range grads {
				got = append(got, gn.Value().Data().([]float64))
			}
			for k, what := range []string{"y", "dx", "dw", "db"} {
				for i := range want[k] {
					if got[k][i] != want[k][i] {
						t.Errorf("%s: %s[%d] = %v, want %v", name, what, i, got[k][i], want[k][i])
						break
					}
				}
			}
			// Weights dropped by the mask get no gradient.
			for i, k := range keep {
				if !k && got[2][i] != 0 {
					t.Errorf("%s: dropped weight %d has gradient %v", name, i, got[2][i])
					break
				}
			}
		}
	}
}

// TestSparseGradient gradient-checks the masked layers in float64: the
// mask is piecewise constant, so away from ties the layer is the dense
// layer on fixed masked weights.
func TestSparseGradient(t *testing.T) {
	for _, lc := range layerCases {
		for _, p := range []sparsity.Pattern{{N: 1, M: 2}, {N: 2, M: 4}} {
			f := LayerFormats{Sparsity: Sparsity{Weight: p}}
			checkGrad(t, lc.name+" "+p.String(), func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
				rng := rand.New(rand.NewPCG(11, 12))
				fwd, ps, err := lc.build(g, f, WithDtype(tensor.Float64), WithSeed(5))
				if err != nil {
					return nil, nil, err
				}
				fillRand(ps[1].Value().Data().([]float64), rng)
				x := input(g, "x", lc.in, normal(rng))
				y, err := fwd(x)
				if err != nil {
					return nil, nil, err
				}
				loss, err := dotLoss(y, rng)
				return loss, append(gorgonia.Nodes{x}, ps...), err
			}, stepOpts)
		}
	}
}

// runLayer32 builds a float32 layer of lc with formats f and weights w
// (nil: its own), runs it with the loss Σ c·y, and returns y and the
// gradients of x, w and b.
func runLayer32(t *testing.T, lc layerCase, f LayerFormats, w []float32) (wv []float32, out [][]float32) {
	t.Helper()
	g := gorgonia.NewGraph()
	rng := rand.New(rand.NewPCG(31, 32))
	fwd, ps, err := lc.build(g, f, WithSeed(13))
	if err != nil {
		t.Fatal(err)
	}
	if w != nil {
		copy(ps[0].Value().Data().([]float32), w)
	}
	for i := range ps[1].Value().Data().([]float32) {
		ps[1].Value().Data().([]float32)[i] = float32(rng.NormFloat64())
	}
	xs := make([]float32, prod(lc.in))
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
	}
	x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(lc.in...), tensor.WithBacking(xs)), gorgonia.WithName("x"))
	y, err := fwd(x)
	if err != nil {
		t.Fatal(err)
	}
	n := y.Shape().TotalSize()
	cs := make([]float32, n)
	for i := range cs {
		cs[i] = float32(rng.NormFloat64())
	}
	flat, err := gorgonia.Reshape(y, tensor.Shape{n})
	if err != nil {
		t.Fatal(err)
	}
	cn := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(n), tensor.WithBacking(cs)), gorgonia.WithName("c"))
	p, err := gorgonia.HadamardProd(flat, cn)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(p)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(loss, append(gorgonia.Nodes{x}, ps...)...)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	out = [][]float32{slices.Clone(y.Value().Data().([]float32))}
	for _, gn := range grads {
		out = append(out, slices.Clone(gn.Value().Data().([]float32)))
	}
	return slices.Clone(ps[0].Value().Data().([]float32)), out
}

// TestSparseEqualsDenseOnMasked: a masked float32 layer computes, bit for
// bit, what the dense layer computes on the masked weights, in every
// accumulation mode and with block formats (the mask comes before the
// rounding); its weight gradient is the dense one masked.
func TestSparseEqualsDenseOnMasked(t *testing.T) {
	p81 := Quantizer{Format: quant.MustParse("posit(8,1)")}
	mx, err := quant.ParseBlock("mxfp8-e4m3")
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range []struct {
		name string
		f    LayerFormats
	}{
		{"fp32", LayerFormats{}},
		{"posit8", LayerFormats{Weight: p81, Act: p81, Out: p81, Err: p81, WGrad: p81}},
		{"posit8-quire", LayerFormats{Weight: p81, Act: p81, Out: p81, Err: p81, WGrad: p81, Accum: quant.AccumQuire}},
		{"posit8-per-op", LayerFormats{Weight: p81, Act: p81, Out: p81, Err: p81, WGrad: p81, Accum: quant.AccumPerOp}},
		{"mxfp8", LayerFormats{Weight: Quantizer{Block: mx}, Act: Quantizer{Block: mx}}},
	} {
		for _, lc := range layerCases {
			sf := fc.f
			sf.Sparsity = Sparsity{Weight: sparsity.Pattern{N: 1, M: 2}}
			w, sparse := runLayer32(t, lc, sf, nil)
			g := gorgonia.NewGraph()
			_, ps, _ := lc.build(g, sf, WithSeed(13))
			rows, cols, column := weightDims(lc, ps[0])
			w64 := make([]float64, len(w))
			for i, v := range w {
				w64[i] = float64(v)
			}
			keep := refMask(w64, rows, cols, column, 1, 2)
			wm := make([]float32, len(w))
			for i := range w {
				if keep[i] {
					wm[i] = w[i]
				}
			}
			_, dense := runLayer32(t, lc, fc.f, wm)
			for i := range dense[2] {
				if !keep[i] {
					dense[2][i] = 0
				}
			}
			for k, what := range []string{"y", "dx", "dw", "db"} {
				for i := range dense[k] {
					if math.Float32bits(sparse[k][i]) != math.Float32bits(dense[k][i]) {
						t.Errorf("%s %s: %s[%d] = %v masked, %v dense on masked weights", fc.name, lc.name, what, i, sparse[k][i], dense[k][i])
						break
					}
				}
			}
		}
	}
}

// TestWeightMaskFreeze: before FixedAfter steps the mask follows the
// weights; once that many steps are done it is frozen, and a frozen mask
// set by Freeze (from a checkpoint) is used as given.
func TestWeightMaskFreeze(t *testing.T) {
	g := gorgonia.NewGraph()
	f := LayerFormats{Sparsity: Sparsity{Weight: sparsity.Pattern{N: 1, M: 2}, FixedAfter: 3}}
	s := NewScope(g, func(string) LayerFormats { return f }, 1)
	net := s.Linear("fc", 4, 1, WithoutBias())
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	ms := Masks(net)
	if len(ms) != 1 || ms[0].Layer() != "fc" {
		t.Fatalf("Masks = %v, want the one of fc", ms)
	}
	m := ms[0]
	w := net.Params()[0].Data()
	x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(1, 4), tensor.WithBacking([]float32{1, 10, 100, 1000})))
	y, err := net.Forward(nil, x)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	forward := func(ws []float32, step int) float32 {
		t.Helper()
		copy(w, ws)
		m.SetStep(7, step)
		vm.Reset()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		return y.Value().Data().([]float32)[0]
	}
	if got := forward([]float32{1, 2, 3, -4}, 1); got != 2*10-4*1000 {
		t.Errorf("step 1: y = %v, want %v", got, 2*10-4*1000)
	}
	if got := forward([]float32{2, 1, -4, 3}, 2); got != 2*1-4*100 {
		t.Errorf("step 2: y = %v, want %v (mask follows the weights)", got, 2*1-4*100)
	}
	// The same step, other weights: the cached mask must not be reused.
	if got := forward([]float32{1, 2, 3, -4}, 2); got != 2*10-4*1000 {
		t.Errorf("step 2, weights changed: y = %v, want %v", got, 2*10-4*1000)
	}
	if m.Frozen() != nil {
		t.Error("mask frozen before step 3")
	}
	if got := forward([]float32{1, 2, 3, -4}, 3); got != 2*10-4*1000 {
		t.Errorf("step 3: y = %v, want %v", got, 2*10-4*1000)
	}
	if got := forward([]float32{2, 1, -4, 3}, 4); got != 1*10+3*1000 {
		t.Errorf("step 4: y = %v, want %v (the mask frozen after step 3)", got, 1*10+3*1000)
	}
	if a, ok := m.Achieved(); !ok || a != 0.5 {
		t.Errorf("Achieved = %v, %v; want 0.5", a, ok)
	}
	if err := m.Freeze([]bool{true, false, false, true}); err != nil {
		t.Fatal(err)
	}
	if got := forward([]float32{2, 1, -4, 3}, 5); got != 2*1+3*1000 {
		t.Errorf("after Freeze: y = %v, want %v", got, 2*1+3*1000)
	}
	for _, bad := range [][]bool{{true, true, false, false}, {true, false, true}} {
		if err := m.Freeze(bad); err == nil {
			t.Errorf("Freeze(%v) accepted a mask that breaks 1:2", bad)
		}
	}
}

func TestSparsityCheck(t *testing.T) {
	g := gorgonia.NewGraph()
	for _, s := range []Sparsity{
		{Weight: sparsity.Pattern{N: 3, M: 2}},
		{Weight: sparsity.Pattern{N: 1, M: 2}, Score: "nosuch"},
		{Grad: sparsity.Pattern{N: 1, M: 2}, FixedAfter: -1},
	} {
		if _, err := NewLinear(g, "fc", 4, 2, LayerFormats{Sparsity: s}); err == nil {
			t.Errorf("NewLinear with %+v: no error", s)
		}
	}
	// Without an active pattern the layer has no mask, whatever the score.
	l, err := NewLinear(g, "fc2", 4, 2, LayerFormats{Sparsity: Sparsity{Score: "random"}})
	if err != nil || l.roles.mask != nil {
		t.Errorf("dense Sparsity: err %v, mask %v", err, l.roles.mask)
	}
}
