package nn_test

import (
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// residualWith runs Scope.Residual built with the formats lf for every
// layer on x rounded to fx and a body that rounds kx to fy, and returns
// x, the body's output, the sum, the module and the graph. The body
// scales by k.
func residualWith(t *testing.T, lf nn.LayerFormats, fx, fy quant.Format, k float64) (x, y, sum []float32, m nn.Module, g *gorgonia.ExprGraph, err error) {
	t.Helper()
	g = gorgonia.NewGraph()
	s := nn.NewScope(g, func(string) nn.LayerFormats { return lf }, 5).Sub("G")
	rng := rand.New(rand.NewPCG(3, 4))
	in := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(4, 8), tensor.WithBacking(randFloats(rng, 32))), gorgonia.WithName("in"))
	xn, err := nn.RoundOther(in, nn.Quantizer{Format: fx}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var yn *gorgonia.Node
	m = s.Residual(nn.Func("body", func(x *gorgonia.Node) (*gorgonia.Node, error) {
		kx, err := nn.Scale(x, k)
		if err != nil {
			return nil, err
		}
		yn, err = nn.RoundOther(kx, nn.Quantizer{Format: fy}, 2)
		return yn, err
	}))
	out, err := m.Forward(nil, xn)
	if err != nil {
		return nil, nil, nil, m, g, err
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	vals := func(n *gorgonia.Node) []float32 { return append([]float32(nil), n.Value().Data().([]float32)...) }
	return vals(xn), vals(yn), vals(out), m, g, nil
}

// checkSum checks sum = x + y (float32), rounded to want unless nil, and
// returns how many sums needed rounding.
func checkSum(t *testing.T, name string, x, y, sum []float32, want quant.Format) int {
	t.Helper()
	rounded := 0
	for i := range sum {
		exact := x[i] + y[i]
		r := exact
		if want != nil {
			r = want.Round(exact)
		}
		if sum[i] != r {
			t.Errorf("%s: sum[%d] = %g, want %g", name, i, sum[i], r)
		}
		if r != exact {
			rounded++
		}
	}
	return rounded
}

// A residual add named none in the policy stays float32 where an unnamed
// one is promoted.
func TestResidualNamedNone(t *testing.T) {
	x, y, sum, m, g, err := residualWith(t, nn.LayerFormats{}, quant.FP8E5M2, quant.FP16, 1.37)
	if err != nil {
		t.Fatal(err)
	}
	if checkSum(t, "unnamed", x, y, sum, quant.FP16) == 0 {
		t.Error("no sum needed rounding: the test shows nothing")
	}
	if got := nn.Promotions(m); !maps.Equal(got, map[string]quant.Format{"G/add": quant.FP16}) {
		t.Errorf("Promotions = %v, want G/add: fp16", got)
	}
	if ns := nn.PromotedNodes(g); len(ns) != 1 || ns["G/add"] == nil {
		t.Errorf("PromotedNodes = %v, want G/add", ns)
	} else if f, ok := nn.FormatOf(ns["G/add"]); !ok || f != quant.FP16 {
		t.Errorf("FormatOf(promoted node) = %v, %v", f, ok)
	}

	x, y, sum, m, g, err = residualWith(t, nn.LayerFormats{OtherNone: true}, quant.FP8E5M2, quant.FP16, 1.37)
	if err != nil {
		t.Fatal(err)
	}
	checkSum(t, "named none", x, y, sum, nil)
	if got := nn.Promotions(m); len(got) != 0 {
		t.Errorf("named none: Promotions = %v, want none", got)
	}
	if ns := nn.PromotedNodes(g); len(ns) != 0 {
		t.Errorf("named none: PromotedNodes = %v", ns)
	}
}

// A prefer list settles a choice among several least upper bounds: the
// first preferred format that is one of them, skipping those that are not.
func TestResidualPrefer(t *testing.T) {
	p81 := quant.MustParse("posit(8,1)")
	_, err := quant.Promoter{BuiltinOnly: true}.Promote(p81, quant.FP8E4M3)
	var amb *quant.AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("posit(8,1) ∨ fp8-e4m3: %v, want several bounds", err)
	}
	rounded := 0
	for _, want := range amb.Bounds {
		pr := &quant.Promoter{Prefer: []quant.Format{quant.FP32, want}, BuiltinOnly: true}
		x, y, sum, m, _, err := residualWith(t, nn.LayerFormats{Promoter: pr}, p81, quant.FP8E4M3, 37.1)
		if err != nil {
			t.Fatalf("preferring %v: %v", want, err)
		}
		rounded += checkSum(t, "prefer "+want.String(), x, y, sum, want)
		if got := nn.Promotions(m)["G/add"]; got != want {
			t.Errorf("preferring %v: Promotions gives %v", want, got)
		}
	}
	if rounded == 0 {
		t.Error("no sum needed rounding: the test shows nothing")
	}
	// Preferring no bound leaves the error, naming the layer.
	pr := &quant.Promoter{Prefer: []quant.Format{quant.FP32}, BuiltinOnly: true}
	if _, _, _, _, _, err := residualWith(t, nn.LayerFormats{Promoter: pr}, p81, quant.FP8E4M3, 37.1); !errors.As(err, &amb) {
		t.Errorf("preferring fp32 only: %v, want an AmbiguousError", err)
	}
}

// The inputs of a loss in different formats: the loss and its gradient
// are rounded to their promotion; in one format, or one unknown, not.
func TestLossPromotes(t *testing.T) {
	run := func(fx, fy quant.Format, loss func(x, y *gorgonia.Node) (*gorgonia.Node, error)) (x, y []float32, l float32, dx []float32) {
		t.Helper()
		g := gorgonia.NewGraph()
		rng := rand.New(rand.NewPCG(7, 8))
		var raw *gorgonia.Node
		mk := func(name string, f quant.Format) *gorgonia.Node {
			n := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(3, 5), gorgonia.WithName(name),
				gorgonia.WithValue(tensor.New(tensor.WithShape(3, 5), tensor.WithBacking(randFloats(rng, 15)))))
			if raw == nil {
				raw = n
			}
			// Forward only: the gradient reaches raw as the loss sends it.
			return roundFwd(t, n, f)
		}
		xn, yn := mk("x", fx), mk("y", fy)
		ln, err := loss(xn, yn)
		if err != nil {
			t.Fatal(err)
		}
		// A loss term of a weighted sum, as models combine them.
		total, err := nn.WeightedSum([]float64{1}, ln)
		if err != nil {
			t.Fatal(err)
		}
		grads, err := gorgonia.Grad(total, raw)
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(g)
		defer vm.Close()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vals := func(n *gorgonia.Node) []float32 { return append([]float32(nil), n.Value().Data().([]float32)...) }
		return vals(xn), vals(yn), total.Value().Data().(float32), vals(grads[0])
	}
	mse := func(x, y *gorgonia.Node) (*gorgonia.Node, error) { return nn.MSELoss(x, y, nil) }
	ref := func(x, y []float32) float32 {
		var s float64
		for i := range x {
			d := float64(x[i]) - float64(y[i])
			s += d * d
		}
		return float32(s / float64(len(x)))
	}
	x, y, l, dx := run(quant.FP8E5M2, quant.FP16, mse)
	if want := quant.FP16.Round(ref(x, y)); l != want {
		t.Errorf("MSE of fp8-e5m2 and fp16: %g, want %g, the fp16 rounding of %g", l, want, ref(x, y))
	}
	if l == ref(x, y) {
		t.Errorf("the loss %g needed no rounding: the test shows nothing", l)
	}
	// The gradient 2(x-y)/n times the incoming 1, which the promotion
	// passes back rounded to fp16 (1 is exact).
	for i := range dx {
		want := float32(2 * (float64(x[i]) - float64(y[i])) / float64(len(x)))
		if math.Abs(float64(dx[i]-want)) > 1e-6*math.Abs(float64(want)) {
			t.Errorf("dx[%d] = %g, want %g", i, dx[i], want)
		}
	}
	x, y, l, _ = run(quant.FP16, quant.FP16, mse)
	if want := ref(x, y); l != want {
		t.Errorf("MSE of fp16 and fp16: %g, want %g unrounded", l, want)
	}
	_, _, _, _ = run(quant.FP8E5M2, nil, mse) // one unknown: nothing to promote, no error
	l1 := func(x, y *gorgonia.Node) (*gorgonia.Node, error) { return nn.L1Loss(x, y, nil) }
	x, y, l, _ = run(quant.FP8E5M2, quant.BF16, l1)
	var s float64
	for i := range x {
		s += math.Abs(float64(x[i]) - float64(y[i]))
	}
	if want := quant.BF16.Round(float32(s / float64(len(x)))); l != want {
		t.Errorf("L1 of fp8-e5m2 and bf16: %g, want %g", l, want)
	}
}

// roundFwd returns x rounded to f forward, the gradient passed straight
// through (nil f: x).
func roundFwd(t *testing.T, x *gorgonia.Node, f quant.Format) *gorgonia.Node {
	t.Helper()
	if f == nil {
		return x
	}
	y, err := nn.Quantize(x, nn.Quantizer{Format: f}, nn.Quantizer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return y
}
