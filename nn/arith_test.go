package nn

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestAddScaleGradient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shapes [][]int
		op     opFunc
	}{
		{"add-4d", [][]int{{2, 3, 2, 2}, {2, 3, 2, 2}}, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return Add(ins[0], ins[1])
		}},
		{"add-2d", [][]int{{3, 4}, {3, 4}}, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return Add(ins[0], ins[1])
		}},
		// x + x: Gorgonia must sum the two gradients of x.
		{"add-self", [][]int{{2, 3}}, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return Add(ins[0], ins[0])
		}},
		{"scale-0.2", [][]int{{2, 2, 3, 2}}, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return Scale(ins[0], 0.2)
		}},
		{"scale-neg", [][]int{{4}}, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return Scale(ins[0], -3)
		}},
		// An ESRGAN-style residual x + 0.2·tanh(x): x reaches the output
		// along two paths.
		{"residual", [][]int{{2, 2, 2, 2}}, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			h, err := Tanh(ins[0])
			if err != nil {
				return nil, err
			}
			if h, err = Scale(h, 0.2); err != nil {
				return nil, err
			}
			return Add(ins[0], h)
		}},
	} {
		checkOpGrad(t, tc.name, tc.shapes, tc.op, stepOpts)
		agreeFloat32(t, tc.name, tc.shapes, tc.op)
	}
}

// Hand-computed values, and the float32 product x·float32(0.2).
func TestAddScaleValues(t *testing.T) {
	g := gorgonia.NewGraph()
	a := gorgonia.NodeFromAny(g, seq(1, 1, 2, 2), gorgonia.WithName("a"))
	b := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(1, 1, 2, 2), tensor.WithBacking([]float64{10, -20, 0.5, 3})), gorgonia.WithName("b"))
	sum, err := Add(a, b)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := Scale(b, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	x32 := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 3, -7})), gorgonia.WithName("x32"))
	scaled32, err := Scale(x32, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	if got, want := values(sum), []float64{10, -19, 2.5, 6}; !slices.Equal(got, want) {
		t.Errorf("Add = %v, want %v", got, want)
	}
	k64 := 0.2 // a variable: a constant product would be exact
	if got, want := values(scaled), []float64{10 * k64, -20 * k64, 0.5 * k64, 3 * k64}; !slices.Equal(got, want) {
		t.Errorf("Scale = %v, want %v", got, want)
	}
	k := float32(0.2)
	if got, want := scaled32.Value().Data().([]float32), []float32{1 * k, 3 * k, -7 * k}; !slices.Equal(got, want) {
		t.Errorf("float32 Scale = %v, want %v", got, want)
	}
}

func TestAddScaleErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	a := gorgonia.NewTensor(g, tensor.Float64, 2, gorgonia.WithShape(2, 3))
	b := gorgonia.NewTensor(g, tensor.Float64, 2, gorgonia.WithShape(3, 2))
	if _, err := Add(a, b); err == nil || !strings.HasPrefix(err.Error(), "nn: add: ") {
		t.Errorf("Add of (2, 3) and (3, 2): error %v", err)
	}
	for _, k := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Scale(a, k); err == nil || !strings.HasPrefix(err.Error(), "nn: scale: ") {
			t.Errorf("Scale(x, %v): error %v", k, err)
		}
	}
}
