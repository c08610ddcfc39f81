package nn

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestAddRowDotGradient(t *testing.T) {
	op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return AddRowDot(ins[0], ins[1], ins[2]) }
	shapes := [][]int{{3, 1}, {3, 4}, {3, 4}}
	checkOpGrad(t, "addrowdot", shapes, op, nil)
	agreeFloat32(t, "addrowdot", shapes, op)
}

// Hand-computed: s = 0 1, h = 0 1 2 / 3 4 5, e = 1 1 1 / 2 0 -1:
// row 0 is 0 + (0+1+2) = 3, row 1 is 1 + (6+0-5) = 2. The gradient of
// Σ y is 1 for s, e for h and h for e.
func TestAddRowDotValues(t *testing.T) {
	g := gorgonia.NewGraph()
	node := func(name string, shape []int, v []float64) *gorgonia.Node {
		return gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v)), gorgonia.WithName(name))
	}
	ev := []float64{1, 1, 1, 2, 0, -1}
	s, h, e := node("s", []int{2, 1}, []float64{0, 1}), node("h", []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}), node("e", []int{2, 3}, ev)
	y, err := AddRowDot(s, h, e)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := Reshape(y, tensor.Shape{2})
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(flat)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(loss, s, h, e)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	if got, want := values(y), []float64{3, 2}; !slices.Equal(got, want) {
		t.Errorf("AddRowDot = %v, want %v", got, want)
	}
	for i, want := range [][]float64{{1, 1}, ev, {0, 1, 2, 3, 4, 5}} {
		if got := floatsOf(grads[i].Value()); !slices.Equal(got, want) {
			t.Errorf("gradient %d = %v, want %v", i, got, want)
		}
	}
}

func TestAddRowDotErrors(t *testing.T) {
	for _, tc := range [][3][]int{
		{{3, 2}, {3, 4}, {3, 4}}, // s not (B, 1)
		{{3, 1}, {3, 4}, {3, 5}}, // h and e differ
		{{2, 1}, {3, 4}, {3, 4}}, // batch
		{{3, 1}, {3, 4, 1}, {3, 4, 1}},
	} {
		g := gorgonia.NewGraph()
		n := func(s []int) *gorgonia.Node {
			return gorgonia.NewTensor(g, tensor.Float64, len(s), gorgonia.WithShape(s...))
		}
		_, err := AddRowDot(n(tc[0]), n(tc[1]), n(tc[2]))
		if err == nil || !strings.HasPrefix(err.Error(), "nn: projection: ") {
			t.Errorf("AddRowDot%v: error %v, want an nn: projection error", tc, err)
		}
	}
}

// TestAddRowDotBits pins the bits of AddRowDot (values and gradients,
// float32 and float64) to those of models.AddRowDot, which it was copied
// from: the hash below was recorded from it.
func TestAddRowDotBits(t *testing.T) {
	if got, want := goldenHash(t, nnImpl, 2, 2), "aa2e8358b2a3439f"; got != want {
		t.Errorf("hash of the bits %s, want %s", got, want)
	}
}
