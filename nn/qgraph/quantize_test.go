package qgraph

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func dense[T float32 | float64](shape []int, v []T) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(v)))
}

func input[T float32 | float64](g *gorgonia.ExprGraph, name string, shape []int, v []T) *gorgonia.Node {
	var dt tensor.Dtype = tensor.Float64
	if _, ok := any(v).([]float32); ok {
		dt = tensor.Float32
	}
	return gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name),
		gorgonia.WithValue(dense(shape, v)))
}

// runGraph runs g once on a TapeMachine.
func runGraph(t *testing.T, g *gorgonia.ExprGraph) {
	t.Helper()
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
}

var p81 = quant.MustParse("posit(8,1)")

// Hand-computed posit(8,1) roundings. Near 1 the format has 4 fraction
// bits (ulp 1/16); in [2,4) ulp 1/8; in [1/4,1/2) ulp 1/64; in [64,128) the
// regime takes 5 bits, leaving the exponent bit and 1 fraction bit
// (values 64, 96).
var (
	handX = []float64{1.0, 1.03, 3.3, -0.3, 100, 0}
	handY = []float64{1.0, 1.0, 3.25, -0.296875, 96, 0}
)

func TestQuantizeForward(t *testing.T) {
	for _, dt := range []string{"float32", "float64"} {
		t.Run(dt, func(t *testing.T) {
			g := gorgonia.NewGraph()
			var x *gorgonia.Node
			if dt == "float32" {
				v := make([]float32, len(handX))
				for i, f := range handX {
					v[i] = float32(f)
				}
				x = input(g, "x", []int{2, 3}, v)
			} else {
				x = input(g, "x", []int{2, 3}, handX)
			}
			before := slices.Clone(valueFloats(x.Value()))
			y, err := Quantize(x, p81, nil, quant.Nearest)
			if err != nil {
				t.Fatal(err)
			}
			// Zero formats: Quantize is the identity and adds no node.
			if z, err := Quantize(x, nil, nil, quant.Stochastic); err != nil || z != x {
				t.Errorf("Quantize(x, nil, nil) = %v, %v; want x itself", z, err)
			}
			runGraph(t, g)
			if got := valueFloats(y.Value()); !slices.Equal(got, handY) {
				t.Errorf("got %v, want %v", got, handY)
			}
			if got := valueFloats(x.Value()); !slices.Equal(got, before) {
				t.Errorf("input changed: %v, was %v", got, before)
			}
			if !y.Shape().Eq(x.Shape()) || y.Dtype() != x.Dtype() {
				t.Errorf("output %v %v, want %v %v", y.Shape(), y.Dtype(), x.Shape(), x.Dtype())
			}
		})
	}
}

// valueFloats returns a float32 or float64 value's elements as float64.
func valueFloats(v gorgonia.Value) []float64 {
	switch d := v.Data().(type) {
	case []float32:
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	case []float64:
		return slices.Clone(d)
	case float32:
		return []float64{float64(d)}
	case float64:
		return []float64{d}
	}
	panic("not a float value")
}

func TestQuantizeHash(t *testing.T) {
	g := gorgonia.NewGraph()
	x := input(g, "x", []int{4}, []float32{1, 2, 3, 4})
	p82 := quant.MustParse("posit(8,2)")
	p81s := quant.MustParse("posit(8,1,scale=2)")
	mk := func(fwd, bwd quant.Format, r quant.Rounding, opts ...Option) *gorgonia.Node {
		n, err := Quantize(x, fwd, bwd, r, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := mk(p81, nil, quant.Nearest)
	tests := []struct {
		name string
		n    *gorgonia.Node
		same bool
	}{
		{"equal parameters merge", mk(p81, nil, quant.Nearest), true},
		{"forward format", mk(p82, nil, quant.Nearest), false},
		{"exponent bias", mk(p81s, nil, quant.Nearest), false},
		{"backward format", mk(p81, p82, quant.Nearest), false},
		{"backward only", mk(nil, p81, quant.Nearest), false},
		{"rounding", mk(p81, nil, quant.Stochastic, WithSeed(1)), false},
		{"backward rounding", mk(p81, p82, quant.Nearest, WithBackwardRounding(quant.Stochastic), WithSeed(0)), false},
		{"seed", mk(p81, nil, quant.Nearest, WithSeed(7)), false},
	}
	for _, tt := range tests {
		if got := tt.n == base; got != tt.same {
			t.Errorf("%s: same node = %v, want %v", tt.name, got, tt.same)
		}
	}
	// All the distinct ones are distinct from each other too.
	seen := map[*gorgonia.Node]string{}
	for _, tt := range tests[1:] {
		if prev, ok := seen[tt.n]; ok {
			t.Errorf("%s and %s merged", tt.name, prev)
		}
		seen[tt.n] = tt.name
	}
}

func TestQuantizeErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	x := input(g, "x", []int{2}, []float32{1, 2})
	if _, err := Quantize(x, p81, nil, quant.Stochastic); err == nil || !strings.Contains(err.Error(), "needs a seed") {
		t.Errorf("stochastic without seed: %v", err)
	}
	if _, err := Quantize(x, nil, p81, quant.Nearest, WithBackwardRounding(quant.Stochastic)); err == nil {
		t.Error("stochastic backward without seed: no error")
	}
	xi := gorgonia.NewTensor(g, tensor.Int, 1, gorgonia.WithShape(2), gorgonia.WithName("xi"))
	if _, err := Quantize(xi, p81, nil, quant.Nearest); err == nil || !strings.Contains(err.Error(), "dtype") {
		t.Errorf("int input: %v", err)
	}
	// float64 stochastic fails when run, with a clear error.
	g = gorgonia.NewGraph()
	x64 := input(g, "x", []int{2}, []float64{1, 2})
	if _, err := Quantize(x64, p81, nil, quant.Stochastic, WithSeed(1)); err != nil {
		t.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("float64 stochastic run: %v", err)
	}
}

func TestQuantizeStochastic(t *testing.T) {
	// 0.3 lies between the posit(8,1) values 19/64 and 20/64, 1/5 of the
	// way up: stochastic rounding gives 20/64 with probability 1/5.
	const n = 4096
	src := make([]float32, n)
	for i := range src {
		src[i] = 0.3
	}
	lo, hi := 19.0/64, 20.0/64
	p := (0.3 - lo) / (hi - lo)
	// run runs a fresh graph runs times, starting from run counter start.
	run := func(seed uint64, runs int, start uint64) [][]float64 {
		g := gorgonia.NewGraph()
		x := input(g, "x", []int{n}, src)
		y, err := Quantize(x, p81, nil, quant.Stochastic, WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		if !SetRuns(y, start) {
			t.Fatal("SetRuns: not a quantization node")
		}
		m := gorgonia.NewTapeMachine(g)
		defer m.Close()
		var out [][]float64
		for range runs {
			if err := m.RunAll(); err != nil {
				t.Fatal(err)
			}
			out = append(out, valueFloats(y.Value()))
			m.Reset()
		}
		if r, ok := Runs(y); !ok || r != start+uint64(runs) {
			t.Errorf("Runs = %d, %v; want %d", r, ok, start+uint64(runs))
		}
		return out
	}
	a, b, c := run(1, 2, 0), run(1, 2, 0), run(2, 1, 0)
	for k, ys := range a {
		ups := 0
		for _, y := range ys {
			switch float64(float32(y)) {
			case float64(float32(hi)):
				ups++
			case float64(float32(lo)):
			default:
				t.Fatalf("stochastic rounding gave %v, not %v or %v", y, lo, hi)
			}
		}
		// Binomial(4096, 0.2): sd 25.6; 6 sd is a test that fails by chance
		// with probability 2e-9.
		if mean := float64(n) * p; math.Abs(float64(ups)-mean) > 6*math.Sqrt(mean*(1-p)) {
			t.Errorf("run %d: %d of %d rounded up, want about %.0f", k+1, ups, n, mean)
		}
	}
	if !slices.Equal(a[0], b[0]) || !slices.Equal(a[1], b[1]) {
		t.Error("same seed, same runs: different bits")
	}
	if slices.Equal(a[0], a[1]) {
		t.Error("second run repeated the first run's random bits")
	}
	if slices.Equal(a[0], c[0]) {
		t.Error("different seeds gave the same bits")
	}
	// Resuming after one run (a checkpoint stores Runs) repeats run 2.
	if r := run(1, 1, 1); !slices.Equal(r[0], a[1]) {
		t.Error("resumed at run 2: bits differ from run 2")
	}
}

// TestQuantizeGradStraightThrough checks the straight-through gradient
// with finite differences. The inputs are posit(16,1) values and the step
// 2^-8 keeps x±h on posit(16,1)'s grid near these values (ulp 2^-13 or
// finer), so the forward rounding is the identity at every point the
// check evaluates and the loss is linear there.
func TestQuantizeGradStraightThrough(t *testing.T) {
	p161 := quant.MustParse("posit(16,1)")
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		x := input(g, "x", []int{2, 3}, []float64{0.5, -0.75, 1.25, 0.125, -1, 0.375})
		y, err := Quantize(x, p161, nil, quant.Nearest)
		if err != nil {
			return nil, nil, err
		}
		l, err := weightedSum(y, 1)
		return l, []*gorgonia.Node{x}, err
	}, &gradcheck.Options{Step: 0x1p-8, RelTol: 1e-12, AbsTol: 1e-12})
	if err != nil {
		t.Error(err)
	}
}

// TestQuantizeGradBackwardFormat checks the definition of a quantized
// backward pass: the gradient is round_bwd(upstream gradient). With loss
// sum(c ⊙ Q(x)) and an identity forward pass, the upstream gradient is c,
// the finite-difference gradient is c, and the symbolic one must be
// round_bwd(c): the hand-computed posit(8,1) roundings of c.
func TestQuantizeGradBackwardFormat(t *testing.T) {
	g := gorgonia.NewGraph()
	x := input(g, "x", []int{2, 3}, []float64{0.5, -0.75, 1.25, 0.125, -1, 0.375})
	c := input(g, "c", []int{2, 3}, handX)
	y, err := Quantize(x, nil, p81, quant.Nearest)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := weightedBy(y, c)
	if err != nil {
		t.Fatal(err)
	}
	wrt := []*gorgonia.Node{x}
	sym, err := gradcheck.Symbolic(loss, wrt)
	if err != nil {
		t.Fatal(err)
	}
	num, err := gradcheck.Numeric(loss, wrt, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	opts := &gradcheck.Options{RelTol: 1e-9, AbsTol: 1e-12}
	// The finite differences see the identity: they equal c.
	if err := gradcheck.Compare(wrt, num, [][]float64{handX}, opts); err != nil {
		t.Errorf("numeric gradient is not c: %v", err)
	}
	// The symbolic gradient is c rounded by hand to posit(8,1).
	if err := gradcheck.Compare(wrt, sym, [][]float64{handY}, opts); err != nil {
		t.Errorf("symbolic gradient is not round(c): %v", err)
	}
	// And round_bwd applied to the numeric gradient agrees too.
	want := make([]float64, len(num[0]))
	for i, v := range num[0] {
		want[i] = p81.Round64(v)
	}
	if err := gradcheck.Compare(wrt, sym, [][]float64{want}, opts); err != nil {
		t.Errorf("symbolic gradient is not round_bwd(numeric): %v", err)
	}
}

// weightedSum returns sum(y ⊙ c) for a fixed c of y's shape whose
// elements are distinct, so every element of y has its own gradient.
func weightedSum(y *gorgonia.Node, seed int) (*gorgonia.Node, error) {
	n := y.Shape().TotalSize()
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(seed*1000 + i)) // deterministic, irregular
	}
	c := input(y.Graph(), "c"+y.Name(), y.Shape(), v)
	if y.Dtype() == tensor.Float32 {
		v32 := make([]float32, n)
		for i := range v {
			v32[i] = float32(v[i])
		}
		c = input(y.Graph(), "c32"+y.Name(), y.Shape(), v32)
	}
	return weightedBy(y, c)
}

// weightedBy returns the loss sum(y ⊙ c), whose gradient with respect to
// y is c.
func weightedBy(y, c *gorgonia.Node) (*gorgonia.Node, error) {
	p, err := gorgonia.HadamardProd(y, c)
	if err != nil {
		return nil, err
	}
	return gorgonia.Sum(p)
}

// TestQuantizeAfterReshape checks that a quantizer between a Reshape view
// and an in-place op protects the input (Gorgonia issue 511): without it,
// the Add below writes into x (see gradcheck's TestCheckCatchesInPlaceWrite).
func TestQuantizeAfterReshape(t *testing.T) {
	g := gorgonia.NewGraph()
	xv := []float32{1, 2, 3, 4, 5, 6}
	x := input(g, "x", []int{2, 3}, xv)
	r, err := gorgonia.Reshape(x, tensor.Shape{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	q, err := Quantize(r, p81, nil, quant.Nearest)
	if err != nil {
		t.Fatal(err)
	}
	y, err := gorgonia.Add(q, input(g, "c", []int{3, 2}, []float32{10, 10, 10, 10, 10, 10}))
	if err != nil {
		t.Fatal(err)
	}
	runGraph(t, g)
	if got := x.Value().Data().([]float32); !slices.Equal(got, xv) {
		t.Errorf("x changed to %v", got)
	}
	if got, want := valueFloats(y.Value()), []float64{11, 12, 13, 14, 15, 16}; !slices.Equal(got, want) {
		t.Errorf("y = %v, want %v", got, want)
	}
}
