package qgraph

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// layerPolicy gives every layer the same formats.
type layerPolicy nn.LayerFormats

func (p layerPolicy) For(string) nn.LayerFormats { return nn.LayerFormats(p) }

// meetInputs returns two (4, 6) inputs of g rounded forward to fa and fb,
// the second about 37 times the first, so that their sums need more
// precision than either has, their values (which an in-place op
// downstream may overwrite in the graph) and the unrounded input a.
func meetInputs(t *testing.T, g *gorgonia.ExprGraph, fa, fb quant.Format) (a, b *gorgonia.Node, ra, rb []float32, in *gorgonia.Node) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	va, vb := make([]float32, 24), make([]float32, 24)
	for i := range va {
		va[i] = float32(rng.NormFloat64())
		vb[i] = 37.1 * float32(rng.NormFloat64())
	}
	in = input(g, "a", []int{4, 6}, va)
	var err error
	if a, err = Quantize(in, fa, nil, quant.Nearest); err != nil {
		t.Fatal(err)
	}
	if b, err = Quantize(input(g, "b", []int{4, 6}, vb), fb, nil, quant.Nearest); err != nil {
		t.Fatal(err)
	}
	ra, rb = make([]float32, 24), make([]float32, 24)
	for i := range ra {
		ra[i], rb[i] = fa.Round(va[i]), fb.Round(vb[i])
	}
	return a, b, ra, rb, in
}

func values(n *gorgonia.Node) []float32 { return n.Value().Data().([]float32) }

// Add and Sub round to the layer's Other format when the policy names
// one, stay float32 when it names none, and otherwise round to the
// promotion of their inputs' formats.
func TestAddSubPromote(t *testing.T) {
	p16 := quant.MustParse("posit(16,1)")
	for _, tc := range []struct {
		name   string
		pol    nn.Policy
		fa, fb quant.Format
		want   quant.Format // nil: float32
	}{
		{"unnamed", nil, quant.FP8E5M2, quant.FP16, quant.FP16},
		{"unnamed, bf16", layerPolicy{}, quant.FP8E5M2, quant.BF16, quant.BF16},
		{"named", layerPolicy{Other: nn.Quantizer{Format: p16}}, quant.FP8E5M2, quant.FP16, p16},
		{"named none", layerPolicy{OtherNone: true}, quant.FP8E5M2, quant.FP16, nil},
		{"equal", nil, quant.FP16, quant.FP16, nil},
		{"prefer", layerPolicy{Promoter: &quant.Promoter{Prefer: []quant.Format{quant.BF16}, BuiltinOnly: true}}, p81, quant.FP8E4M3, quant.BF16},
	} {
		for _, sub := range []bool{false, true} {
			g := gorgonia.NewGraph()
			a, b, ra, rb, _ := meetInputs(t, g, tc.fa, tc.fb)
			op, f := Add, func(x, y float32) float32 { return x + y }
			if sub {
				op, f = Sub, func(x, y float32) float32 { return x - y }
			}
			y, err := op(tc.pol, "res/add", a, b)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			runGraph(t, g)
			rounded := 0
			for i, v := range values(y) {
				exact := f(ra[i], rb[i])
				want := exact
				if tc.want != nil {
					want = tc.want.Round(exact)
				}
				if v != want {
					t.Errorf("%s (sub %v): [%d] = %g, want %g", tc.name, sub, i, v, want)
				}
				if want != exact {
					rounded++
				}
			}
			if tc.want != nil && rounded == 0 {
				t.Errorf("%s: nothing needed rounding: the test shows nothing", tc.name)
			}
		}
	}
	// Several least upper bounds, none preferred: an error naming the layer.
	g := gorgonia.NewGraph()
	a, b, _, _, _ := meetInputs(t, g, p81, quant.FP8E4M3)
	_, err := Add(nil, "res/add", a, b)
	var amb *quant.AmbiguousError
	if !errors.As(err, &amb) || !strings.Contains(err.Error(), "res/add") {
		t.Errorf("posit(8,1) + fp8-e4m3: %v, want an AmbiguousError naming res/add", err)
	}
}

// A promoted concatenation keeps every value and records the promoted
// format for the ops downstream; its gradient passes straight through
// (and through a's forward-only rounding).
func TestConcatPromotes(t *testing.T) {
	g := gorgonia.NewGraph()
	a, b, ra, rb, in := meetInputs(t, g, quant.FP8E5M2, quant.FP16)
	c, err := Concat(nil, "cat", 0, []*gorgonia.Node{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := nn.FormatOf(c); !ok || f != quant.FP16 {
		t.Errorf("FormatOf(concat) = %v, %v, want fp16", f, ok)
	}
	sum, err := gorgonia.Sum(c)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(sum, in)
	if err != nil {
		t.Fatal(err)
	}
	runGraph(t, g)
	want := append(append([]float32(nil), ra...), rb...)
	for i, v := range values(c) {
		if v != want[i] {
			t.Errorf("concat[%d] = %g, want %g", i, v, want[i])
		}
	}
	for i, d := range values(grads[0]) {
		if d != 1 {
			t.Errorf("gradient[%d] = %g, want 1", i, d)
		}
	}
}
