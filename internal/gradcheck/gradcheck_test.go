package gradcheck

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// randDense returns a float64 tensor of the given shape with values in
// [-1, 1) from a fixed seed.
func randDense(seed uint64, shape ...int) *tensor.Dense {
	r := rand.New(rand.NewPCG(seed, 1))
	n := tensor.Shape(shape).TotalSize()
	d := make([]float64, n)
	for i := range d {
		d[i] = 2*r.Float64() - 1
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
}

// weightedSum returns sum(y ⊙ c) for a fixed random c of y's shape, so
// that every element of y gets a different, nonzero upstream gradient.
func weightedSum(y *gorgonia.Node, seed uint64) (*gorgonia.Node, error) {
	c := gorgonia.NewTensor(y.Graph(), tensor.Float64, y.Dims(), gorgonia.WithShape(y.Shape()...),
		gorgonia.WithName(fmt.Sprintf("c%d", seed)), gorgonia.WithValue(randDense(seed, y.Shape()...)))
	p, err := gorgonia.HadamardProd(y, c)
	if err != nil {
		return nil, err
	}
	return gorgonia.Sum(p)
}

func leaf(g *gorgonia.ExprGraph, name string, seed uint64, shape ...int) *gorgonia.Node {
	return gorgonia.NewTensor(g, tensor.Float64, len(shape), gorgonia.WithShape(shape...),
		gorgonia.WithName(name), gorgonia.WithValue(randDense(seed, shape...)))
}

func TestCheckKnownGoodOps(t *testing.T) {
	tests := []struct {
		name  string
		build Builder
	}{
		{"Mul matrix", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			a, b := leaf(g, "a", 1, 3, 4), leaf(g, "b", 2, 4, 2)
			y, err := gorgonia.Mul(a, b)
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 3)
			return l, []*gorgonia.Node{a, b}, err
		}},
		{"Tanh", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := leaf(g, "x", 4, 2, 5)
			y, err := gorgonia.Tanh(x)
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 5)
			return l, []*gorgonia.Node{x}, err
		}},
		{"Conv2d stride 2 pad 1", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x, w := leaf(g, "x", 6, 2, 2, 5, 5), leaf(g, "w", 7, 3, 2, 3, 3)
			y, err := gorgonia.Conv2d(x, w, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}, []int{1, 1})
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 8)
			return l, []*gorgonia.Node{x, w}, err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Check(tt.build, nil); err != nil {
				t.Error(err)
			}
		})
	}
}

// scaleOp computes k·x. With wrongGrad its SymDiff forgets the factor k,
// a deliberately wrong gradient the checker must catch.
type scaleOp struct {
	k         float64
	wrongGrad bool
}

func (op scaleOp) Arity() int { return 1 }
func (op scaleOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}
func (op scaleOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (op scaleOp) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	x := in[0].(*tensor.Dense)
	src := x.Data().([]float64)
	dst := make([]float64, len(src))
	for i, v := range src {
		dst[i] = op.k * v
	}
	return tensor.New(tensor.WithShape(x.Shape().Clone()...), tensor.WithBacking(dst)), nil
}
func (op scaleOp) ReturnsPtr() bool      { return false }
func (op scaleOp) CallsExtern() bool     { return false }
func (op scaleOp) OverwritesInput() int  { return -1 }
func (op scaleOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "scale(%v,%v)", op.k, op.wrongGrad) }
func (op scaleOp) Hashcode() uint32 {
	h := fnvHash()
	op.WriteHash(h)
	return h.Sum32()
}
func (op scaleOp) String() string       { return fmt.Sprintf("scale(%g)", op.k) }
func (op scaleOp) DiffWRT(n int) []bool { return []bool{true} }
func (op scaleOp) SymDiff(in gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.wrongGrad {
		return gorgonia.Nodes{grad}, nil
	}
	k := gorgonia.NewConstant(op.k)
	d, err := gorgonia.Mul(grad, k)
	return gorgonia.Nodes{d}, err
}

func scaleBuilder(op scaleOp) Builder {
	return func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		x := leaf(g, "x", 9, 2, 3)
		y, err := gorgonia.ApplyOp(op, x)
		if err != nil {
			return nil, nil, err
		}
		l, err := weightedSum(y, 10)
		return l, []*gorgonia.Node{x}, err
	}
}

func TestCheckCatchesWrongGradient(t *testing.T) {
	if err := Check(scaleBuilder(scaleOp{k: 3}), nil); err != nil {
		t.Fatalf("correct custom op: %v", err)
	}
	err := Check(scaleBuilder(scaleOp{k: 3, wrongGrad: true}), nil)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("wrong SymDiff: got error %v, want a *MismatchError", err)
	}
	// Every element's gradient is off by the factor 3.
	if me.Node != "x" || me.Bad != 6 || me.Total != 6 {
		t.Errorf("got %+v, want node x with 6 of 6 elements bad", me)
	}
	if r := me.Numeric / me.Symbolic; r < 3-1e-6 || r > 3+1e-6 {
		t.Errorf("numeric/symbolic = %g, want 3", r)
	}
	if !strings.Contains(err.Error(), "d/dx[") {
		t.Errorf("message %q does not name the element", err)
	}
}

func TestCompare(t *testing.T) {
	g := gorgonia.NewGraph()
	a, b := leaf(g, "a", 1, 2, 2), leaf(g, "b", 2, 3)
	wrt := []*gorgonia.Node{a, b}
	opts := &Options{RelTol: 1e-3, AbsTol: 1e-6}
	tests := []struct {
		name      string
		sym, want [][]float64
		bad       int    // elements out of tolerance
		worst     string // node and coordinates of the worst one
	}{
		{"equal", [][]float64{{1, 2, 3, 4}, {0, 0, 0}}, [][]float64{{1, 2, 3, 4}, {0, 0, 0}}, 0, ""},
		{"within rel tol", [][]float64{{1000, 2, 3, 4}, {0, 0, 0}}, [][]float64{{1000.9, 2, 3, 4}, {0, 0, 0}}, 0, ""},
		{"within abs tol", [][]float64{{1, 2, 3, 4}, {0, 0, 9e-7}}, [][]float64{{1, 2, 3, 4}, {0, 0, 0}}, 0, ""},
		{"abs tol exceeded", [][]float64{{1, 2, 3, 4}, {0, 0, 2e-6}}, [][]float64{{1, 2, 3, 4}, {0, 0, 0}}, 1, "b[2]"},
		{"worst of two", [][]float64{{1, 2, 3, 4.1}, {0, 0, 2e-6}}, [][]float64{{1, 2, 3, 4}, {0, 0, 0}}, 2, "a[1 1]"},
		{"sign flip", [][]float64{{1, -2, 3, 4}, {0, 0, 0}}, [][]float64{{1, 2, 3, 4}, {0, 0, 0}}, 1, "a[0 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Compare(wrt, tt.sym, tt.want, opts)
			if tt.bad == 0 {
				if err != nil {
					t.Errorf("got %v, want nil", err)
				}
				return
			}
			var me *MismatchError
			if !errors.As(err, &me) {
				t.Fatalf("got %v, want *MismatchError", err)
			}
			if got := fmt.Sprint(me.Node, me.Coords); got != tt.worst || me.Bad != tt.bad {
				t.Errorf("worst %s, %d bad; want %s, %d bad", got, me.Bad, tt.worst, tt.bad)
			}
		})
	}
}

func TestCheckBadInput(t *testing.T) {
	tests := []struct {
		name  string
		build Builder
		want  string
	}{
		{"float32 loss", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
			l, err := gorgonia.Sum(x)
			return l, []*gorgonia.Node{x}, err
		}, "want a float64 scalar"},
		{"non-leaf", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := leaf(g, "x", 1, 3)
			y, err := gorgonia.Tanh(x)
			if err != nil {
				return nil, nil, err
			}
			l, err := gorgonia.Sum(y)
			return l, []*gorgonia.Node{y}, err
		}, "is not a leaf"},
		{"unbound", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"))
			l, err := gorgonia.Sum(x)
			return l, []*gorgonia.Node{x}, err
		}, "bound before the check"},
		{"vector loss", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := leaf(g, "x", 1, 3)
			return x, []*gorgonia.Node{x}, nil
		}, "want a float64 scalar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.build, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func fnvHash() hash.Hash32 { return fnv.New32a() }

// TestCheckCatchesAvgPoolDefect checks the checker against a real
// Gorgonia defect: AveragePool2D's backward pass gives gradient only to the
// first window (see the project's Gorgonia notes).
func TestCheckCatchesAvgPoolDefect(t *testing.T) {
	err := Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		x := leaf(g, "x", 11, 1, 1, 4, 4)
		y, err := gorgonia.AveragePool2D(x, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2})
		if err != nil {
			return nil, nil, err
		}
		l, err := weightedSum(y, 12)
		return l, []*gorgonia.Node{x}, err
	}, nil)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("got %v, want a *MismatchError", err)
	}
}

// TestCheckCatchesInPlaceWrite checks that a graph writing into a checked
// input through a Reshape view (Gorgonia issue 511) is reported.
func TestCheckCatchesInPlaceWrite(t *testing.T) {
	err := Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		x := leaf(g, "x", 13, 2, 3)
		r, err := gorgonia.Reshape(x, tensor.Shape{3, 2})
		if err != nil {
			return nil, nil, err
		}
		y, err := gorgonia.Add(r, leaf(g, "c", 14, 3, 2))
		if err != nil {
			return nil, nil, err
		}
		l, err := weightedSum(y, 15)
		return l, []*gorgonia.Node{x}, err
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "changed input x[") {
		t.Errorf("got %v, want an error reporting that x was changed", err)
	}
}
