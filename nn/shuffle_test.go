package nn

import (
	"math/rand/v2"
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

// The kernel against the definition y[b, c, h·r+i, w·r+j] =
// x[b, c·r²+i·r+j, h, w], both ways.
func TestPixelShuffleReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct{ b, c, h, w, r int }{{2, 3, 2, 5, 2}, {1, 2, 3, 1, 3}, {3, 1, 1, 1, 4}} {
		ci, oh, ow := s.c*s.r*s.r, s.h*s.r, s.w*s.r
		x := make([]float64, s.b*ci*s.h*s.w)
		fillRand(x, rng)
		y := make([]float64, len(x))
		g := shuffleGeom{n: s.b * s.c, h: s.h, w: s.w, r: s.r}
		shuffle(g, y, x, false)
		back := make([]float64, len(x))
		shuffle(g, y, back, true)
		if !slices.Equal(back, x) {
			t.Errorf("%+v: backward of forward is not the identity", s)
		}
		for b := 0; b < s.b; b++ {
			for c := 0; c < s.c; c++ {
				for h := 0; h < s.h; h++ {
					for w := 0; w < s.w; w++ {
						for i := 0; i < s.r; i++ {
							for j := 0; j < s.r; j++ {
								got := y[((b*s.c+c)*oh+h*s.r+i)*ow+w*s.r+j]
								want := x[((b*ci+c*s.r*s.r+i*s.r+j)*s.h+h)*s.w+w]
								if got != want {
									t.Fatalf("%+v: y[%d,%d,%d,%d] = %v, want %v", s, b, c, h*s.r+i, w*s.r+j, got, want)
								}
							}
						}
					}
				}
			}
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
