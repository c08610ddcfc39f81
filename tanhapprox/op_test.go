package tanhapprox

import (
	"math"
	"strings"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Inputs of the gradient checks: spread over both tails and the middle,
// at least 0.01 from every pwl3 breakpoint (tanh: 0.769, 1.755; sigmoid:
// 1.538, 3.509) and from every posit(16,0) rounding boundary's effect
// (the at-output checks do not differentiate the staircase).
var gradInputs = []float64{-4.2, -2.1, -1.1, -0.6, -0.3, 0.05, 0.4, 0.9, 1.3, 2.6, 3.9, 6}

// weights make every element's gradient distinct.
var gradWeights = []float64{0.3, -1.2, 0.7, 2.1, -0.4, 1.5, -0.9, 0.25, 1.1, -1.7, 0.6, 0.8}

// lossGraph builds loss = sum(w ⊙ Activation(W·x)) in float64, with W
// the 3×4 identity-like mixing matrix when mix is true (so the gradient
// also flows through a matrix product), else loss = sum(w ⊙
// Activation(x)) with x of shape 3×4.
func lossGraph(t *testing.T, a Approx, g Grad, mix bool) (loss, x, y *gorgonia.Node, wrt []*gorgonia.Node) {
	t.Helper()
	gr := gorgonia.NewGraph()
	x = gorgonia.NewMatrix(gr, tensor.Float64, gorgonia.WithShape(3, 4), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(append([]float64(nil), gradInputs...)))))
	w := gorgonia.NewMatrix(gr, tensor.Float64, gorgonia.WithShape(3, 4), gorgonia.WithName("w"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(append([]float64(nil), gradWeights...)))))
	in := x
	wrt = []*gorgonia.Node{x}
	if mix {
		// M is near the identity: M·x keeps the inputs near gradInputs.
		m := gorgonia.NewMatrix(gr, tensor.Float64, gorgonia.WithShape(3, 3), gorgonia.WithName("M"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(3, 3), tensor.WithBacking([]float64{1, 0.001, 0, 0, 1, -0.002, 0.001, 0, 1}))))
		var err error
		if in, err = gorgonia.Mul(m, x); err != nil {
			t.Fatal(err)
		}
		wrt = append(wrt, m)
	}
	y, err := Activation(in, a, g)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gorgonia.HadamardProd(w, y)
	if err != nil {
		t.Fatal(err)
	}
	if loss, err = gorgonia.Sum(p); err != nil {
		t.Fatal(err)
	}
	return loss, x, y, wrt
}

// The piecewise derivative is the true derivative of the pwl function:
// central differences through the whole graph agree with it.
func TestActivationGradPiecewise(t *testing.T) {
	for _, fn := range []Func{Tanh, Sigmoid} {
		for _, k := range []int{2, 3, 5} {
			p := newPWL(t, fn, k)
			loss, _, _, wrt := lossGraph(t, p, GradPiecewise, true)
			if err := gradcheck.CheckGraph(loss, wrt, &gradcheck.Options{Step: 1e-6, RelTol: 1e-6, AbsTol: 1e-9}); err != nil {
				t.Errorf("%v: %v", p, err)
			}
		}
	}
	// The smooth exact function checks the plumbing of the other modes
	// against finite differences too.
	for _, g := range []Grad{GradAtOutput, GradExact} {
		for _, fn := range []Func{Tanh, Sigmoid} {
			loss, _, _, wrt := lossGraph(t, Exact{fn}, g, true)
			if err := gradcheck.CheckGraph(loss, wrt, nil); err != nil {
				t.Errorf("exact %v, grad %v: %v", fn, g, err)
			}
		}
	}
}

// A sliced input (a view in Gorgonia) is read correctly, and its gradient
// lands in the right row.
func TestActivationOnView(t *testing.T) {
	p := newPWL(t, Tanh, 3)
	gr := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(gr, tensor.Float64, gorgonia.WithShape(3, 4), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(append([]float64(nil), gradInputs...)))))
	row, err := gorgonia.Slice(x, gorgonia.S(1))
	if err != nil {
		t.Fatal(err)
	}
	y, err := Activation(row, p, GradPiecewise)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(y)
	if err != nil {
		t.Fatal(err)
	}
	if err := gradcheck.CheckGraph(loss, []*gorgonia.Node{x}, nil); err != nil {
		t.Error(err)
	}
	sym, err := gradcheck.Symbolic(loss, []*gorgonia.Node{x})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range sym[0] {
		want := 0.0
		if i/4 == 1 {
			want = p.Slope(gradInputs[i])
		}
		if g != want {
			t.Errorf("d loss/d x[%d] = %g, want %g", i, g, want)
		}
	}
}

// The at-output and exact backward passes follow their definitions:
// dx = w·f'(y) with f' written in y, or w·f'(x), computed here
// independently (1 - y², y(1-y), 1/cosh²(x), e^-x/(1+e^-x)²).
func TestActivationGradDefinitions(t *testing.T) {
	p16 := posit(t, 16, 0)
	corr, err := NewCorrectedTanh(p16, DefaultTheta, DefaultDelta)
	if err != nil {
		t.Fatal(err)
	}
	approxes := []Approx{bitwise(t, Tanh, 16), corr, bitwise(t, Sigmoid, 16), bitwise(t, Tanh, 8),
		newPWL(t, Tanh, 3), newPWL(t, Sigmoid, 3)}
	for _, a := range approxes {
		for _, g := range []Grad{GradAtOutput, GradExact} {
			loss, x, _, _ := lossGraph(t, a, g, false)
			sym, err := gradcheck.Symbolic(loss, []*gorgonia.Node{x})
			if err != nil {
				t.Fatalf("%v: %v", a, err)
			}
			want := make([]float64, len(gradInputs))
			for i, v := range gradInputs {
				var d float64
				switch {
				case g == GradExact && a.Func() == Tanh:
					d = 1 / (math.Cosh(v) * math.Cosh(v))
				case g == GradExact:
					d = math.Exp(-v) / ((1 + math.Exp(-v)) * (1 + math.Exp(-v)))
				case a.Func() == Tanh:
					y := a.At(v)
					d = 1 - y*y
				default:
					y := a.At(v)
					d = y * (1 - y)
				}
				want[i] = gradWeights[i] * d
			}
			if err := gradcheck.Compare([]*gorgonia.Node{x}, sym, [][]float64{want}, &gradcheck.Options{RelTol: 1e-12, AbsTol: 1e-15}); err != nil {
				t.Errorf("%v, grad %v: %v", a, g, err)
			}
		}
	}
}

// The forward pass gives At in float64 and Apply in float32, and the
// float32 backward pass gives the float32 rounding of the definition.
func TestActivationForward(t *testing.T) {
	corr, err := NewCorrectedTanh(posit(t, 16, 0), DefaultTheta, DefaultDelta)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []Approx{corr, newPWL(t, Sigmoid, 4)} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			gr := gorgonia.NewGraph()
			var back any
			if dt == tensor.Float32 {
				f := make([]float32, len(gradInputs))
				for i, v := range gradInputs {
					f[i] = float32(v)
				}
				back = f
			} else {
				back = append([]float64(nil), gradInputs...)
			}
			x := gorgonia.NewMatrix(gr, dt, gorgonia.WithShape(3, 4), gorgonia.WithName("x"),
				gorgonia.WithValue(tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(back))))
			y, err := Activation(x, a, GradAtOutput)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := gorgonia.Sum(y)
			if err != nil {
				t.Fatal(err)
			}
			gs, err := gorgonia.Grad(loss, x)
			if err != nil {
				t.Fatal(err)
			}
			m := gorgonia.NewTapeMachine(gr)
			if err := m.RunAll(); err != nil {
				t.Fatal(err)
			}
			m.Close()
			yv := y.Value().(*tensor.Dense)
			gv := gs[0].Value().(*tensor.Dense)
			for i, v := range gradInputs {
				if dt == tensor.Float64 {
					want := a.At(v)
					if got := yv.Float64s()[i]; got != want {
						t.Errorf("%v float64: y(%g) = %g, want %g", a, v, got, want)
					}
					if got := gv.Float64s()[i]; got != 1-want*want && a.Func() == Tanh || a.Func() == Sigmoid && got != want*(1-want) {
						t.Errorf("%v float64: dy/dx(%g) = %g", a, v, got)
					}
					continue
				}
				want := a.Apply(make([]float32, 1), []float32{float32(v)})[0]
				if got := yv.Float32s()[i]; got != want {
					t.Errorf("%v float32: y(%g) = %g, want %g", a, v, got, want)
				}
				d := float32(a.Func().DerivAtOutput(float64(want)))
				if got := gv.Float32s()[i]; got != d {
					t.Errorf("%v float32: dy/dx(%g) = %g, want %g", a, v, got, d)
				}
			}
		}
	}
}

// A second derivative through the backward op is an error, not a silent
// zero.
func TestActivationSecondDerivative(t *testing.T) {
	loss, x, _, _ := lossGraph(t, newPWL(t, Tanh, 3), GradPiecewise, false)
	gs, err := gorgonia.Grad(loss, x)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := gorgonia.Sum(gs[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gorgonia.Grad(l2, x); err == nil || !strings.Contains(err.Error(), "second derivatives are not supported") {
		t.Errorf("second derivative: error %v, want one saying it is not supported", err)
	}
}

func TestActivationErrorsAndHashes(t *testing.T) {
	gr := gorgonia.NewGraph()
	x := gorgonia.NewVector(gr, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"))
	if _, err := Activation(x, bitwise(t, Tanh, 16), GradPiecewise); err == nil {
		t.Error("bitwise with the piecewise gradient succeeded")
	}
	if _, err := Activation(x, nil, GradAtOutput); err == nil {
		t.Error("nil approximation succeeded")
	}
	if _, err := Activation(x, Exact{Tanh}, Grad(9)); err == nil {
		t.Error("Grad(9) succeeded")
	}
	p16 := posit(t, 16, 0)
	c1, _ := NewCorrectedTanh(p16, DefaultTheta, DefaultDelta)
	c2, _ := NewCorrectedTanh(p16, DefaultTheta, 0.07)
	c3, _ := NewCorrectedTanh(p16, 0.75, DefaultDelta)
	ops := []struct {
		a    Approx
		grad Grad
	}{
		{a: bitwise(t, Tanh, 16)}, {a: bitwise(t, Tanh, 8)}, {a: bitwise(t, Sigmoid, 16)},
		{a: c1}, {a: c2}, {a: c3}, {a: c1.RoundedOutput()}, {a: c1, grad: GradExact},
		{a: newPWL(t, Tanh, 3)}, {a: newPWL(t, Tanh, 4)}, {a: newPWL(t, Sigmoid, 3)},
		{a: newPWL(t, Tanh, 3).WithOutput(p16)}, {a: newPWL(t, Tanh, 3), grad: GradPiecewise},
	}
	shape := tensor.Shape{3}
	seen := map[uint32]string{}
	for _, o := range ops {
		op := activationOp(o.a, o.grad, shape)
		h := op.Hashcode()
		if prev, ok := seen[h]; ok {
			t.Errorf("%v and %v have the same hash", prev, op)
		}
		seen[h] = op.String()
		same := activationOp(o.a, o.grad, shape)
		if same.Hashcode() != h {
			t.Errorf("%v: equal ops hash differently", op)
		}
		g := gradOp(o.a, o.grad, shape)
		if g.Hashcode() == h {
			t.Errorf("%v: forward and backward ops share a hash", op)
		}
	}
}
