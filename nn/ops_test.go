package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestOpGradients(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []int
		op   func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error)
	}{
		{"avgpool-k2s2", []int{2, 2, 4, 4}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := AvgPool2D(x, 2, 2)
			return y, nil, err
		}},
		{"avgpool-k3s1", []int{1, 2, 5, 4}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := AvgPool2D(x, 3, 1)
			return y, nil, err
		}},
		{"upsample-2", []int{2, 2, 3, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := Upsample2D(x, 2)
			return y, nil, err
		}},
		{"upsample-3", []int{1, 1, 2, 3}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := Upsample2D(x, 3)
			return y, nil, err
		}},
		{"spatialmean", []int{2, 3, 3, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := SpatialMean(x)
			return y, nil, err
		}},
		{"relu", []int{2, 3, 2, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := ReLU(x)
			return y, nil, err
		}},
		{"leakyrelu", []int{2, 3, 2, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := LeakyReLU(x, 0.2)
			return y, nil, err
		}},
		{"tanh", []int{2, 3, 2, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := Tanh(x)
			return y, nil, err
		}},
		{"reshape", []int{2, 3, 2, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			y, err := Reshape(x, tensor.Shape{6, 4})
			return y, nil, err
		}},
		{"instancenorm", []int{2, 3, 3, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := NewInstanceNorm(g, "in", 3, 1e-5, WithDtype(tensor.Float64))
			if err != nil {
				return nil, nil, err
			}
			randomAffine(l.Params())
			y, err := l.Fwd(x)
			return y, l.Params(), err
		}},
		{"batchnorm-train-4d", []int{3, 2, 2, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := NewBatchNorm(g, "bn", 2, 0.1, 1e-5, WithDtype(tensor.Float64))
			if err != nil {
				return nil, nil, err
			}
			randomAffine(l.Params())
			y, err := l.Fwd(x)
			return y, l.Params(), err
		}},
		{"batchnorm-train-2d", []int{4, 3}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := NewBatchNorm(g, "bn", 3, 0.1, 1e-5, WithDtype(tensor.Float64))
			if err != nil {
				return nil, nil, err
			}
			randomAffine(l.Params())
			y, err := l.Fwd(x)
			return y, l.Params(), err
		}},
		{"batchnorm-eval", []int{3, 2, 2, 2}, func(g *gorgonia.ExprGraph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := NewBatchNorm(g, "bn", 2, 0.1, 1e-5, WithDtype(tensor.Float64))
			if err != nil {
				return nil, nil, err
			}
			randomAffine(l.Params())
			copy(l.RunningMean.Data().([]float64), []float64{0.3, -0.2})
			copy(l.RunningVar.Data().([]float64), []float64{1.5, 0.7})
			l.Eval()
			y, err := l.Fwd(x)
			return y, l.Params(), err
		}},
	} {
		checkGrad(t, tc.name, func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(31, 32))
			x := input(g, "x", tc.in, normal(rng))
			y, ps, err := tc.op(g, x)
			if err != nil {
				return nil, nil, err
			}
			loss, err := dotLoss(y, rng)
			return loss, append(gorgonia.Nodes{x}, ps...), err
		}, stepOpts)
	}
}

func randomAffine(ps gorgonia.Nodes) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, p := range ps {
		fillRand(p.Value().Data().([]float64), rng)
	}
}

// Hand-computed forward values.
func TestOpValues(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NodeFromAny(g, seq(1, 2, 2, 2), gorgonia.WithName("x"))
	up, err := Upsample2D(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInstanceNorm(g, "in", 2, 1e-5, WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	copy(in.Gamma.Value().Data().([]float64), []float64{2, 1})
	copy(in.Beta.Value().Data().([]float64), []float64{0, 10})
	norm, err := in.Fwd(x)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	wantUp := []float64{
		0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3,
		4, 4, 5, 5, 4, 4, 5, 5, 6, 6, 7, 7, 6, 6, 7, 7,
	}
	if got := values(up); !slices.Equal(got, wantUp) {
		t.Errorf("Upsample2D = %v, want %v", got, wantUp)
	}
	// Each plane is m + {0,1,2,3}: mean m+1.5, variance 1.25.
	s := 1 / math.Sqrt(1.25+1e-5)
	wantNorm := []float64{-3 * s, -s, s, 3 * s, 10 - 1.5*s, 10 - 0.5*s, 10 + 0.5*s, 10 + 1.5*s}
	for i, v := range values(norm) {
		if math.Abs(v-wantNorm[i]) > 1e-12 {
			t.Errorf("InstanceNorm[%d] = %v, want %v", i, v, wantNorm[i])
		}
	}
}
