package graphop

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/allocs"
	"github.com/positgan/positgan/internal/gradcheck"
)

// cube returns a Map computing x³, whose gradient 3x²·dy is a Func of the
// shapes the graph gives it.
func cube() *Map {
	return &Map{
		Name: "cube",
		Fn: func(dst, src *tensor.Dense) error {
			if src.Dtype() == tensor.Float64 {
				for i, v := range src.Float64s() {
					dst.Float64s()[i] = v * v * v
				}
				return nil
			}
			for i, v := range src.Float32s() {
				dst.Float32s()[i] = v * v * v
			}
			return nil
		},
		Grad: func(x, _, dy *gorgonia.Node) (*gorgonia.Node, error) {
			shape := x.Shape().Clone()
			var buf OutBuf
			return gorgonia.ApplyOp(&Func{Name: "cube.dx", In: []tensor.Shape{shape, shape}, Out: shape,
				Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
					dx := buf.Get(tensor.Float64, shape)
					for i, v := range in[0].Float64s() {
						dx.Float64s()[i] = 3 * v * v * in[1].Float64s()[i]
					}
					return dx, nil
				}}, x, dy)
		},
	}
}

// randTensor returns a float64 tensor of the given shape with values in
// [-2, 2).
func randTensor(r *rand.Rand, shape ...int) *tensor.Dense {
	d := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
	for i := range d.Float64s() {
		d.Float64s()[i] = 4*r.Float64() - 2
	}
	return d
}

// One Map serves every rank: its gradient passes the check for vectors,
// matrices and 4-D tensors.
func TestMapGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []tensor.Shape{{5}, {2, 3}, {2, 1, 2, 3}} {
		err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := gorgonia.NewTensor(g, tensor.Float64, shape.Dims(), gorgonia.WithShape(shape...), gorgonia.WithName("x"),
				gorgonia.WithValue(randTensor(r, shape...)))
			y, err := gorgonia.ApplyOp(cube(), x)
			if err != nil {
				return nil, nil, err
			}
			if !y.Shape().Eq(shape) {
				t.Errorf("cube of a %v tensor has shape %v", shape, y.Shape())
			}
			loss, err := gorgonia.Sum(y)
			return loss, []*gorgonia.Node{x}, err
		}, nil)
		if err != nil {
			t.Errorf("shape %v: %v", shape, err)
		}
	}
}

// A Gorgonia scalar comes in as a 0-dimensional tensor, and the result is
// one of the input's element type.
func TestMapScalar(t *testing.T) {
	op := cube()
	f64, f32 := gorgonia.F64(-2), gorgonia.F32(3)
	y, err := op.Do(&f64)
	if err != nil {
		t.Fatal(err)
	}
	if d := y.(*tensor.Dense); !d.Shape().IsScalar() || d.Float64s()[0] != -8 {
		t.Errorf("cube(-2) = %v of shape %v, want -8 of shape ()", d, d.Shape())
	}
	if y, err = op.Do(&f32); err != nil {
		t.Fatal(err)
	}
	if d := y.(*tensor.Dense); d.Dtype() != tensor.Float32 || d.Float32s()[0] != 27 {
		t.Errorf("cube(float32 3) = %v (%v), want float32 27", d, d.Dtype())
	}
}

// The output buffer is kept while the element type and shape stay, and a
// warm run allocates nothing.
func TestMapBuffer(t *testing.T) {
	op := cube()
	x := tensor.New(tensor.WithShape(4, 256), tensor.WithBacking(make([]float32, 1024)))
	a, err := op.Do(x)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := op.Do(x); b != a {
		t.Error("a second run of the same shape made a new output tensor")
	}
	if c, _ := op.Do(tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3}))); c == a || !slices.Equal(c.Data().([]float32), []float32{1, 8, 27}) {
		t.Errorf("a run of shape (3) gave %v, want a new tensor [1 8 27]", c)
	}
	var v gorgonia.Value = x
	s := gorgonia.F64(2)
	if n := allocs.PerRun(20, func() {
		if _, err := op.Do(v); err != nil {
			t.Fatal(err)
		}
		if _, err := op.Do(&s); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations a run", n)
	}
}

// A view that is not contiguous is copied before Fn sees it.
func TestMapView(t *testing.T) {
	x := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	col, err := x.Slice(nil, gorgonia.S(1))
	if err != nil {
		t.Fatal(err)
	}
	y, err := cube().Do(col)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := y.Data().([]float64), []float64{8, 64, 216}; !slices.Equal(got, want) {
		t.Errorf("x[:, 1]³ = %v, want %v", got, want)
	}
}

// Without Grad the op has no gradient, and says so.
func TestMapNoGradient(t *testing.T) {
	op := cube()
	op.Grad = nil
	if w := op.DiffWRT(1); !slices.Equal(w, []bool{false}) {
		t.Errorf("DiffWRT = %v, want [false]", w)
	}
	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	if _, err := op.SymDiff(gorgonia.Nodes{x}, x, x); err == nil {
		t.Error("SymDiff without Grad: no error")
	}
}
