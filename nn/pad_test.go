package nn

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestReflectionPad2DGradient(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []int
		pad  int
	}{
		{"pad1", []int{2, 2, 3, 4}, 1},
		{"pad2", []int{1, 2, 3, 4}, 2},
		{"pad3-wide", []int{1, 1, 4, 5}, 3},
		{"pad0", []int{1, 2, 2, 2}, 0},
	} {
		op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return ReflectionPad2D(ins[0], tc.pad) }
		checkOpGrad(t, "reflectionpad2d-"+tc.name, [][]int{tc.in}, op, stepOpts)
		agreeFloat32(t, "reflectionpad2d-"+tc.name, [][]int{tc.in}, op)
	}
}

// Hand-computed values: a 3×3 image 0..8 padded by 1, and a row 0 1 2 3
// padded by 2. The gradient of Σ y counts the copies of each pixel: with
// pad 1 on 3 pixels, rows (and columns) 0 1 2 are copied 1, 3 and 1 times
// (the padded index runs 1 0 1 2 1).
func TestReflectionPad2DValues(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       []int
		pad      int
		want     []float64
		wantGrad []float64 // of Σ y
	}{
		{"3x3-pad1", []int{1, 1, 3, 3}, 1,
			[]float64{
				4, 3, 4, 5, 4,
				1, 0, 1, 2, 1,
				4, 3, 4, 5, 4,
				7, 6, 7, 8, 7,
				4, 3, 4, 5, 4,
			},
			[]float64{1, 3, 1, 3, 9, 3, 1, 3, 1}},
		{"row-pad2", []int{1, 1, 3, 4}, 2,
			[]float64{
				10, 9, 8, 9, 10, 11, 10, 9,
				6, 5, 4, 5, 6, 7, 6, 5,
				2, 1, 0, 1, 2, 3, 2, 1,
				6, 5, 4, 5, 6, 7, 6, 5,
				10, 9, 8, 9, 10, 11, 10, 9,
				6, 5, 4, 5, 6, 7, 6, 5,
				2, 1, 0, 1, 2, 3, 2, 1,
			},
			// rows 0 1 2 copied 2, 3, 2 times (index 2 1 0 1 2 1 0);
			// columns 0 1 2 3 copied 1, 3, 3, 1 times (2 1 0 1 2 3 2 1).
			[]float64{2, 6, 6, 2, 3, 9, 9, 3, 2, 6, 6, 2}},
	} {
		y, grad := sumGrad(t, tc.in, func(x *gorgonia.Node) (*gorgonia.Node, error) { return ReflectionPad2D(x, tc.pad) })
		if !slices.Equal(y, tc.want) {
			t.Errorf("%s: ReflectionPad2D = %v, want %v", tc.name, y, tc.want)
		}
		if !slices.Equal(grad, tc.wantGrad) {
			t.Errorf("%s: gradient of the sum = %v, want %v", tc.name, grad, tc.wantGrad)
		}
	}
}

func TestReflectionPad2DErrors(t *testing.T) {
	for _, tc := range []struct {
		in  []int
		pad int
	}{
		{[]int{1, 1, 3, 3}, 3},  // pad = H
		{[]int{1, 1, 5, 2}, 2},  // pad = W
		{[]int{1, 1, 3, 3}, -1}, // negative
		{[]int{4, 3}, 1},        // not 4-D
	} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewTensor(g, tensor.Float64, len(tc.in), gorgonia.WithShape(tc.in...))
		_, err := ReflectionPad2D(x, tc.pad)
		if err == nil || !strings.HasPrefix(err.Error(), "nn: reflectionpad2d: ") {
			t.Errorf("ReflectionPad2D(%v, %d): error %v, want an nn: reflectionpad2d error", tc.in, tc.pad, err)
		}
	}
}
