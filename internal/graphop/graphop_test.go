package graphop

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// double returns a Func computing 2·x for x of shape (3), taking views if
// copyViews is set.
func double(copyViews bool) *Func {
	return &Func{
		Name: "double",
		In:   []tensor.Shape{{3}},
		Out:  tensor.Shape{3},
		Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			y := tensor.New(tensor.WithShape(3), tensor.Of(tensor.Float64))
			for i, v := range in[0].Float64s() {
				y.Float64s()[i] = 2 * v
			}
			return y, nil
		},
		CopyViews: copyViews,
	}
}

// A column of a matrix is a view that is not contiguous: Do copies it with
// CopyViews and refuses it without.
func TestCopyViews(t *testing.T) {
	for _, copyViews := range []bool{true, false} {
		x := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
		col, err := x.Slice(nil, gorgonia.S(1))
		if err != nil {
			t.Fatal(err)
		}
		if !col.RequiresIterator() {
			t.Fatal("a column of a matrix is contiguous")
		}
		y, err := double(copyViews).Do(col)
		if !copyViews {
			if err == nil || !strings.Contains(err.Error(), "not a contiguous tensor") {
				t.Errorf("without CopyViews: error %v, want one about a tensor that is not contiguous", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, want := y.Data().([]float64), []float64{4, 8, 12}; !slices.Equal(got, want) {
			t.Errorf("2·x[:, 1] = %v, want %v", got, want)
		}
	}
}

// Name is the op's String and its hash.
func TestHash(t *testing.T) {
	a, b := double(false), double(false)
	if a.Hashcode() != b.Hashcode() {
		t.Error("equal ops hash differently")
	}
	b.Name = "triple"
	if a.Hashcode() == b.Hashcode() {
		t.Error("ops of different names share a hash")
	}
	if a.String() != "double" {
		t.Errorf("String() = %q, want %q", a.String(), "double")
	}
}
