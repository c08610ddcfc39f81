package graphop

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/allocs"
	"github.com/positgan/positgan/internal/gradcheck"
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

// Key, when set, is the hash in place of Name, which stays the String:
// Gorgonia merges the nodes of ops with equal keys and keeps apart those
// whose keys differ, whatever their names.
func TestKey(t *testing.T) {
	a, b := double(false), double(false)
	a.Key, b.Key = "double{id=1}", "double{id=2}"
	if a.Hashcode() == b.Hashcode() {
		t.Error("Funcs of different keys share a hash")
	}
	if a.String() != "double" {
		t.Errorf("String() = %q, want the name %q", a.String(), "double")
	}
	b.Key, b.Name = a.Key, "twice"
	if a.Hashcode() != b.Hashcode() {
		t.Error("Funcs of one key hash differently")
	}

	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	apply := func(key string) *gorgonia.Node {
		m := cube()
		m.Key = key
		n, err := gorgonia.ApplyOp(m, x)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n1, n2 := apply("cube{id=1}"), apply("cube{id=2}"); n1 == n2 {
		t.Error("Maps of different keys were merged")
	}
	if n1, n2 := apply("cube{id=3}"), apply("cube{id=3}"); n1 != n2 {
		t.Error("Maps of one key were not merged")
	}
}

// sumSquares returns a Diff computing Σx² over x of the given shape as a
// Gorgonia scalar (ScalarOut), with gradient 2x·g.
func sumSquares(shape tensor.Shape) *Diff {
	var fwd, bwd OutBuf
	op := &Diff{
		Func: Func{Name: "sumsq", In: []tensor.Shape{shape}, Out: tensor.ScalarShape(), ScalarOut: true,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				var s float64
				if in[0].Dtype() == tensor.Float64 {
					for _, v := range in[0].Float64s() {
						s += v * v
					}
				} else {
					for _, v := range in[0].Float32s() {
						s += float64(v) * float64(v)
					}
				}
				y := fwd.Get(in[0].Dtype(), tensor.ScalarShape())
				if y.Dtype() == tensor.Float64 {
					y.Float64s()[0] = s
				} else {
					y.Float32s()[0] = float32(s)
				}
				return y, nil
			}},
		WRT: []bool{true},
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		dx, err := gorgonia.ApplyOp(&Func{Name: "sumsq.dx", In: []tensor.Shape{shape, tensor.ScalarShape()}, Out: shape,
			Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
				dx, g := bwd.Get(tensor.Float64, shape), in[1].Float64s()[0]
				for i, v := range in[0].Float64s() {
					dx.Float64s()[i] = 2 * v * g
				}
				return dx, nil
			}}, inputs[0], grad)
		return gorgonia.Nodes{dx}, err
	}
	return op
}

// ScalarOut hands the result back as a Gorgonia scalar of the input's
// element type, the same one at every run, without allocating.
func TestScalarOut(t *testing.T) {
	op := sumSquares(tensor.Shape{3})
	x64 := tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{1, 2, 3}))
	x32 := tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, -2}))
	y, err := op.Do(x64)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := y.(*gorgonia.F64); !ok || *s != 14 {
		t.Errorf("Σx² of [1 2 3] = %v (%T), want *gorgonia.F64 14", y, y)
	}
	if y2, _ := op.Do(x64); y2 != y {
		t.Error("a second run handed out a new scalar")
	}
	if y, err = op.Do(x32); err != nil {
		t.Fatal(err)
	}
	if s, ok := y.(*gorgonia.F32); !ok || *s != 9 {
		t.Errorf("Σx² of float32 [1 2 -2] = %v (%T), want *gorgonia.F32 9", y, y)
	}
	var v gorgonia.Value = x64
	if n := allocs.PerRun(20, func() {
		if _, err := op.Do(v); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations a run", n)
	}
}

// Two ScalarOut losses combine through Gorgonia's scalar-scalar ops, and
// the gradient of the sum passes the check.
func TestScalarOutGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("x"), gorgonia.WithValue(randTensor(r, 2, 3)))
		y := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(4), gorgonia.WithName("y"), gorgonia.WithValue(randTensor(r, 4)))
		lx, err := gorgonia.ApplyOp(sumSquares(x.Shape()), x)
		if err != nil {
			return nil, nil, err
		}
		ly, err := gorgonia.ApplyOp(sumSquares(y.Shape()), y)
		if err != nil {
			return nil, nil, err
		}
		if ly, err = gorgonia.Mul(ly, gorgonia.NewConstant(0.5)); err != nil {
			return nil, nil, err
		}
		loss, err := gorgonia.Add(lx, ly)
		return loss, []*gorgonia.Node{x, y}, err
	}, nil)
	if err != nil {
		t.Error(err)
	}
}
