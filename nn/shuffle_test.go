package nn

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestPixelShuffleGradient(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []int
		r    int
	}{
		{"r2", []int{2, 8, 2, 3}, 2},
		{"r3", []int{1, 9, 2, 2}, 3},
		{"r1", []int{1, 3, 2, 2}, 1},
	} {
		op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return PixelShuffle(ins[0], tc.r) }
		checkOpGrad(t, "pixelshuffle-"+tc.name, [][]int{tc.in}, op, stepOpts)
		agreeFloat32(t, "pixelshuffle-"+tc.name, [][]int{tc.in}, op)
	}
}

// Hand-computed: torch.arange(16.).view(1, 4, 2, 2) through
// nn.PixelShuffle(2) gives the rows below (channel i·2+j fills the pixels
// (2h+i, 2w+j)). Every input pixel has one copy, so the gradient of Σ y
// is 1.
func TestPixelShuffleValues(t *testing.T) {
	y, grad := sumGrad(t, []int{1, 4, 2, 2}, func(x *gorgonia.Node) (*gorgonia.Node, error) { return PixelShuffle(x, 2) })
	want := []float64{
		0, 4, 1, 5,
		8, 12, 9, 13,
		2, 6, 3, 7,
		10, 14, 11, 15,
	}
	if !slices.Equal(y, want) {
		t.Errorf("PixelShuffle = %v, want %v", y, want)
	}
	for i, v := range grad {
		if v != 1 {
			t.Errorf("gradient of the sum [%d] = %v, want 1", i, v)
		}
	}
}

func TestPixelShuffleErrors(t *testing.T) {
	for _, tc := range []struct {
		in []int
		r  int
	}{
		{[]int{1, 6, 2, 2}, 2}, // 6 channels, not a multiple of 4
		{[]int{1, 4, 2, 2}, 0},
		{[]int{1, 4, 2, 2}, -2},
		{[]int{4, 4}, 2}, // not 4-D
	} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewTensor(g, tensor.Float64, len(tc.in), gorgonia.WithShape(tc.in...))
		_, err := PixelShuffle(x, tc.r)
		if err == nil || !strings.HasPrefix(err.Error(), "nn: pixelshuffle: ") {
			t.Errorf("PixelShuffle(%v, %d): error %v, want an nn: pixelshuffle error", tc.in, tc.r, err)
		}
	}
}
