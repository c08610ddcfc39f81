package nn

import (
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
)

// TestPadPools checks the padded pools and the spatial mean on the 3×3
// image 0..8 by hand: outputs and the gradients of their sums.
func TestPadPools(t *testing.T) {
	shape := []int{1, 1, 3, 3}
	// Average pool gradients: a corner is in the windows of 4 (its own),
	// 6, 6 and 9 pixels; an edge in two of 4, three of 6 and one of 9;
	// the centre in all nine.
	c, e, m := 1./4+2./6+1./9, 2./4+3./6+1./9, 4./4+4./6+1./9
	for _, tc := range []struct {
		name    string
		op      func(x *gorgonia.Node) (*gorgonia.Node, error)
		y, grad []float64
	}{
		// count_include_pad=False: a corner averages its 4 neighbours, an
		// edge its 6, the centre all 9.
		{name: "avg 3/1/1", op: func(x *gorgonia.Node) (*gorgonia.Node, error) { return AvgPool2DPad(x, 3, 1, 1) },
			y:    []float64{2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6},
			grad: []float64{c, e, c, e, m, e, c, e, c}},
		// The largest in-image neighbour; each output's gradient goes to
		// its maximum: pixel 8 wins four windows, 5 and 7 two, 4 one.
		{name: "max 3/1/1", op: func(x *gorgonia.Node) (*gorgonia.Node, error) { return MaxPool2D(x, 3, 1, 1) },
			y:    []float64{4, 5, 5, 7, 8, 8, 7, 8, 8},
			grad: []float64{0, 0, 0, 0, 1, 2, 0, 2, 4}},
		{name: "max 3/2/0", op: func(x *gorgonia.Node) (*gorgonia.Node, error) { return MaxPool2D(x, 3, 2, 0) },
			y:    []float64{8},
			grad: []float64{0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{name: "spatial mean", op: SpatialMean,
			y:    []float64{4},
			grad: []float64{1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9}},
	} {
		y, grad := sumGrad(t, shape, tc.op)
		if !slices.Equal(y, tc.y) {
			t.Errorf("%s: y = %v, want %v", tc.name, y, tc.y)
		}
		for i, w := range tc.grad {
			if d := grad[i] - w; d > 1e-15 || d < -1e-15 {
				t.Errorf("%s: grad = %v, want %v at %d", tc.name, grad, tc.grad, i)
				break
			}
		}
	}
}

// TestPadPoolGradients checks the gradients of the padded pools against
// finite differences, with windows cut by the
// padding on both sides and a stride that skips pixels, and that their
// float32 paths compute what the float64 ones do.
func TestPadPoolGradients(t *testing.T) {
	shapes := [][]int{{2, 3, 5, 6}}
	for _, tc := range []struct {
		name string
		op   opFunc
	}{
		{"maxpool2d 3/2/1", func(in []*gorgonia.Node) (*gorgonia.Node, error) { return MaxPool2D(in[0], 3, 2, 1) }},
		{"maxpool2d 2/1/0", func(in []*gorgonia.Node) (*gorgonia.Node, error) { return MaxPool2D(in[0], 2, 1, 0) }},
		{"avgpool2dpad 3/2/1", func(in []*gorgonia.Node) (*gorgonia.Node, error) { return AvgPool2DPad(in[0], 3, 2, 1) }},
		{"avgpool2dpad 3/1/1", func(in []*gorgonia.Node) (*gorgonia.Node, error) { return AvgPool2DPad(in[0], 3, 1, 1) }},
	} {
		checkOpGrad(t, tc.name, shapes, tc.op, nil)
		agreeFloat32(t, tc.name, shapes, tc.op)
	}
}

func TestPadPoolErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	x := input(g, "x", []int{1, 1, 3, 3}, func() float64 { return 0 })
	for _, tc := range []struct {
		name           string
		k, stride, pad int
	}{
		{"kernel 0", 0, 1, 0},
		{"stride 0", 3, 0, 1},
		{"padding over half the kernel", 3, 1, 2},
		{"kernel over the padded image", 6, 1, 1},
	} {
		if _, err := MaxPool2D(x, tc.k, tc.stride, tc.pad); err == nil {
			t.Errorf("MaxPool2D %s: no error", tc.name)
		}
		if _, err := AvgPool2DPad(x, tc.k, tc.stride, tc.pad); err == nil {
			t.Errorf("AvgPool2DPad %s: no error", tc.name)
		}
	}
}
