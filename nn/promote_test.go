package nn_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// residualOf runs Scope.Residual under a policy that names nothing, on x
// rounded to fx with a body that rounds 1.37x to fy (fx, fy nil: no
// rounding), and returns x, the body's output and the sum.
func residualOf(t *testing.T, fx, fy quant.Format, concat bool) (x, y, sum []float32, err error) {
	t.Helper()
	g := gorgonia.NewGraph()
	s := nn.NewScope(g, nil, 5).Sub("G")
	rng := rand.New(rand.NewPCG(3, 4))
	in := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(4, 8), tensor.WithBacking(randFloats(rng, 32))), gorgonia.WithName("in"))
	round := func(n *gorgonia.Node, f quant.Format) (*gorgonia.Node, error) {
		if f == nil {
			return n, nil
		}
		return nn.RoundOther(n, nn.Quantizer{Format: f}, 1)
	}
	xn, err := round(in, fx)
	if err != nil {
		t.Fatal(err)
	}
	if concat { // x is the concatenation of two halves in fx and fp8-e5m2
		in2 := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(4, 8), tensor.WithBacking(randFloats(rng, 32))), gorgonia.WithName("in2"))
		half, err := round(in2, quant.FP8E5M2)
		if err != nil {
			t.Fatal(err)
		}
		if xn, err = nn.Concat(xn, half); err != nil {
			t.Fatal(err)
		}
	}
	var yn *gorgonia.Node
	body := nn.Func("body", func(x *gorgonia.Node) (*gorgonia.Node, error) {
		k, err := nn.Scale(x, 1.37)
		if err != nil {
			return nil, err
		}
		yn, err = round(k, fy)
		return yn, err
	})
	out, err := s.Residual(body).Forward(nil, xn)
	if err != nil {
		return nil, nil, nil, err
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	vals := func(n *gorgonia.Node) []float32 { return append([]float32(nil), n.Value().Data().([]float32)...) }
	return vals(xn), vals(yn), vals(out), nil
}

func TestResidualPromotes(t *testing.T) {
	p81 := quant.MustParse("posit(8,1)")
	check := func(name string, x, y, sum []float32, want quant.Format) {
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
		if want != nil && rounded == 0 {
			t.Errorf("%s: no sum needed rounding: the test shows nothing", name)
		}
	}
	// fp8-e5m2 ∨ fp16 = fp16.
	x, y, sum, err := residualOf(t, quant.FP8E5M2, quant.FP16, false)
	if err != nil {
		t.Fatal(err)
	}
	check("e5m2+fp16", x, y, sum, quant.FP16)
	// Equal formats, or one unknown: the sum stays float32, as before.
	for _, c := range [][2]quant.Format{{quant.FP16, quant.FP16}, {nil, quant.FP16}, {quant.FP16, nil}} {
		x, y, sum, err := residualOf(t, c[0], c[1], false)
		if err != nil {
			t.Fatal(err)
		}
		check("unpromoted", x, y, sum, nil)
	}
	// A concatenation's format is its inputs' promotion: fp4-e2m1 ∨
	// fp8-e5m2 is fp8-e5m2, and with a body in bf16 the sum is rounded to
	// fp8-e5m2 ∨ bf16 = bf16.
	x, y, sum, err = residualOf(t, quant.FP4E2M1, quant.BF16, true)
	if err != nil {
		t.Fatal(err)
	}
	check("concat", x, y, sum, quant.BF16)
	// Several least upper bounds: an error, not a silent pick.
	_, _, _, err = residualOf(t, p81, quant.FP8E4M3, false)
	var amb *quant.AmbiguousError
	if !errors.As(err, &amb) || !strings.Contains(err.Error(), "G/add") {
		t.Errorf("posit(8,1) + fp8-e4m3: %v, want an AmbiguousError naming G/add", err)
	}
}
