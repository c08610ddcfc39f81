package nn

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestConcatGradient(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []int
	}{
		{"2d", []int{3, 4}, []int{3, 2}},
		{"2d-one-col", []int{2, 1}, []int{2, 5}},
		{"4d", []int{2, 3, 2, 3}, []int{2, 1, 2, 3}},
		{"4d-batch1", []int{1, 2, 3, 1}, []int{1, 4, 3, 1}},
	} {
		op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return Concat(ins[0], ins[1]) }
		checkOpGrad(t, "concat-"+tc.name, [][]int{tc.a, tc.b}, op, stepOpts)
		agreeFloat32(t, "concat-"+tc.name, [][]int{tc.a, tc.b}, op)
	}
}

// Hand-computed values, a = 0, 1, 2, ... and b = 10, 11, 12, ...: each
// batch row of the result is that row of a followed by that row of b.
func TestConcatValues(t *testing.T) {
	seqFrom := func(n int, from float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = from + float64(i)
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		a, b  []int
		shape tensor.Shape
		want  []float64
	}{
		{"2d", []int{2, 2}, []int{2, 3}, tensor.Shape{2, 5},
			[]float64{0, 1, 10, 11, 12, 2, 3, 13, 14, 15}},
		{"4d", []int{2, 1, 1, 2}, []int{2, 3, 1, 2}, tensor.Shape{2, 4, 1, 2},
			[]float64{0, 1, 10, 11, 12, 13, 14, 15, 2, 3, 16, 17, 18, 19, 20, 21}},
	} {
		g := gorgonia.NewGraph()
		av, bv := seqFrom(prod(tc.a), 0), seqFrom(prod(tc.b), 10)
		a := gorgonia.NodeFromAny(g, newParam(tensor.Float64, tc.a, func(i int) float64 { return av[i] }), gorgonia.WithName("a"))
		b := gorgonia.NodeFromAny(g, newParam(tensor.Float64, tc.b, func(i int) float64 { return bv[i] }), gorgonia.WithName("b"))
		y, err := Concat(a, b)
		if err != nil {
			t.Fatal(err)
		}
		run(t, g)
		if !y.Shape().Eq(tc.shape) {
			t.Errorf("%s: shape %v, want %v", tc.name, y.Shape(), tc.shape)
		}
		if got := values(y); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Concat = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestConcatErrors(t *testing.T) {
	for _, tc := range []struct{ a, b []int }{
		{[]int{2, 3}, []int{3, 3}},             // batch
		{[]int{2, 3}, []int{2, 3, 1, 1}},       // ranks
		{[]int{2, 1, 2, 2}, []int{2, 1, 2, 3}}, // W
		{[]int{2, 1, 3, 2}, []int{2, 1, 2, 2}}, // H
		{[]int{2, 1, 2}, []int{2, 1, 2}},       // 3-D
	} {
		g := gorgonia.NewGraph()
		a := gorgonia.NewTensor(g, tensor.Float64, len(tc.a), gorgonia.WithShape(tc.a...))
		b := gorgonia.NewTensor(g, tensor.Float64, len(tc.b), gorgonia.WithShape(tc.b...))
		_, err := Concat(a, b)
		if err == nil || !strings.HasPrefix(err.Error(), "nn: concat: ") {
			t.Errorf("Concat(%v, %v): error %v, want an nn: concat error", tc.a, tc.b, err)
		}
	}
}
