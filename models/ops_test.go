package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/gradcheck"
)

func randNode(g *gorgonia.ExprGraph, name string, rng *rand.Rand, shape ...int) *gorgonia.Node {
	t := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(shape...))
	for i, d := 0, t.Data().([]float64); i < len(d); i++ {
		v := rng.NormFloat64()
		for math.Abs(v) < 0.05 { // keep away from the kinks of ReLU
			v = rng.NormFloat64()
		}
		d[i] = v
	}
	return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name))
}

// weighted returns Σ c·y for fixed random c, so that every element of y
// gets its own gradient.
func weighted(y *gorgonia.Node, rng *rand.Rand) (*gorgonia.Node, error) {
	n := y.Shape().TotalSize()
	c := randNode(y.Graph(), "c", rng, y.Shape()...)
	p, err := gorgonia.HadamardProd(y, c)
	if err != nil {
		return nil, err
	}
	flat, err := gorgonia.Reshape(p, tensor.Shape{n})
	if err != nil {
		return nil, err
	}
	return gorgonia.Sum(flat)
}

func TestOpGradients(t *testing.T) {
	scale := 3.0
	cases := []struct {
		name  string
		build func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error)
	}{
		{"LeakyReLU", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 4, 5)
			y, err := LeakyReLU(x, 0.2)
			if err != nil {
				return nil, nil, err
			}
			l, err := weighted(y, rng)
			return l, []*gorgonia.Node{x}, err
		}},
		{"ReLU", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 2, 3, 2, 2)
			y, err := ReLU(x)
			if err != nil {
				return nil, nil, err
			}
			l, err := weighted(y, rng)
			return l, []*gorgonia.Node{x}, err
		}},
		{"Tanh", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 3, 4)
			y, err := Tanh(x)
			if err != nil {
				return nil, nil, err
			}
			l, err := weighted(y, rng)
			return l, []*gorgonia.Node{x}, err
		}},
		{"ConcatCols", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			a, b := randNode(g, "a", rng, 3, 4), randNode(g, "b", rng, 3, 2)
			y, err := ConcatCols(a, b)
			if err != nil {
				return nil, nil, err
			}
			l, err := weighted(y, rng)
			return l, []*gorgonia.Node{a, b}, err
		}},
		{"BatchNorm2D", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 5, 3)
			bn := NewBatchNorm(g, "bn", 3, tensor.Float64)
			copy(bn.Gamma.Value().Data().([]float64), []float64{0.5, -1.5, 2})
			copy(bn.Beta.Value().Data().([]float64), []float64{0.1, 0.2, -0.3})
			y, err := bn.Fwd(x)
			if err != nil {
				return nil, nil, err
			}
			l, err := weighted(y, rng)
			return l, []*gorgonia.Node{x, bn.Gamma, bn.Beta}, err
		}},
		{"BatchNorm4D", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 3, 2, 2, 3)
			bn := NewBatchNorm(g, "bn", 2, tensor.Float64)
			y, err := bn.Fwd(x)
			if err != nil {
				return nil, nil, err
			}
			l, err := weighted(y, rng)
			return l, []*gorgonia.Node{x, bn.Gamma, bn.Beta}, err
		}},
		{"SoftplusMeanReal", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 6, 1)
			l, err := SoftplusMean(x, -1, nil)
			return l, []*gorgonia.Node{x}, err
		}},
		{"SoftplusMeanFake", func(g *gorgonia.ExprGraph, rng *rand.Rand) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := randNode(g, "x", rng, 2, 1, 1, 1)
			l, err := SoftplusMean(x, 1, nil)
			return l, []*gorgonia.Node{x}, err
		}},
	}
	for i, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			return c.build(g, rng)
		}, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	_ = scale
}

// The loss-scaled gradient is the gradient times the scale.
func TestSoftplusMeanScale(t *testing.T) {
	for _, sign := range []float64{-1, 1} {
		var grads [2][]float64
		for i, s := range []float64{1, 1024} {
			g := gorgonia.NewGraph()
			x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{-2, 0.5, 40})), gorgonia.WithName("x"))
			l, err := SoftplusMean(x, sign, &s)
			if err != nil {
				t.Fatal(err)
			}
			sym, err := gradcheck.Symbolic(l, []*gorgonia.Node{x})
			if err != nil {
				t.Fatal(err)
			}
			grads[i] = sym[0]
		}
		for j := range grads[0] {
			if grads[1][j] != 1024*grads[0][j] {
				t.Errorf("sign %v: scaled gradient %v, want 1024·%v", sign, grads[1][j], grads[0][j])
			}
		}
	}
}

// softplus and sigmoid against their definitions where those are safe,
// and the closed forms at extremes.
func TestSoftplusSafe(t *testing.T) {
	for _, x := range []float64{-30, -3, -0.5, 0, 0.5, 3, 30} {
		if got, want := softplus(x), math.Log(1+math.Exp(x)); math.Abs(got-want) > 1e-15*math.Max(1, want) {
			t.Errorf("softplus(%v) = %v, want %v", x, got, want)
		}
		if got, want := sigmoid(x), 1/(1+math.Exp(-x)); math.Abs(got-want) > 1e-16 {
			t.Errorf("sigmoid(%v) = %v, want %v", x, got, want)
		}
	}
	// softplus(x) = x + log1p(exp(-x)) = x for x > 745 (exp(-x) underflows):
	// the naive log(1+exp(x)) gives +Inf there.
	if got := softplus(1000); got != 1000 {
		t.Errorf("softplus(1000) = %v, want 1000", got)
	}
	if got := softplus(-1000); got != 0 {
		t.Errorf("softplus(-1000) = %v, want 0", got)
	}
	if got := sigmoid(-1000); got != 0 || math.IsNaN(sigmoid(1000)) {
		t.Errorf("sigmoid(-1000) = %v, sigmoid(1000) = %v", got, sigmoid(1000))
	}
}

func TestSoftplusLossTwoTerms(t *testing.T) {
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		rng := rand.New(rand.NewPCG(3, 4))
		a, b := randNode(g, "a", rng, 4, 1), randNode(g, "b", rng, 3, 1, 1, 1)
		l, err := SoftplusLoss(nil, []*gorgonia.Node{a, b}, []float64{-1, 1})
		return l, []*gorgonia.Node{a, b}, err
	}, nil)
	if err != nil {
		t.Error(err)
	}
}

func TestAddRowDotGradient(t *testing.T) {
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		rng := rand.New(rand.NewPCG(8, 9))
		s, h, e := randNode(g, "s", rng, 3, 1), randNode(g, "h", rng, 3, 4), randNode(g, "e", rng, 3, 4)
		y, err := AddRowDot(s, h, e)
		if err != nil {
			return nil, nil, err
		}
		l, err := weighted(y, rng)
		return l, []*gorgonia.Node{s, h, e}, err
	}, nil)
	if err != nil {
		t.Error(err)
	}
}
