package nn

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestLossGradients(t *testing.T) {
	scale := 3.0
	for _, tc := range []struct {
		name   string
		shapes [][]int
		scale  float64 // the loss scale the op applies, 0 for none
		op     opFunc
	}{
		{"l1", [][]int{{3, 4}, {3, 4}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return L1Loss(ins[0], ins[1], nil)
		}},
		{"l1-4d-scaled", [][]int{{2, 2, 2, 3}, {2, 2, 2, 3}}, scale, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return L1Loss(ins[0], ins[1], &scale)
		}},
		{"mse", [][]int{{5}, {5}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return MSELoss(ins[0], ins[1], nil)
		}},
		{"mse-4d-scaled", [][]int{{2, 3, 2, 2}, {2, 3, 2, 2}}, scale, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return MSELoss(ins[0], ins[1], &scale)
		}},
		// (x - x)² has zero gradient: both inputs' gradients must sum.
		{"mse-self", [][]int{{4}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return MSELoss(ins[0], ins[0], nil)
		}},
		{"mse-target-1", [][]int{{6, 1}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return MSETarget(ins[0], 1, nil)
		}},
		{"mse-target-0-scaled", [][]int{{2, 1, 2, 2}}, scale, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return MSETarget(ins[0], 0, &scale)
		}},
		{"softplusmean-real", [][]int{{6, 1}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return SoftplusMean(ins[0], -1, nil)
		}},
		{"softplusmean-fake", [][]int{{2, 1, 1, 1}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return SoftplusMean(ins[0], 1, nil)
		}},
		{"softplusloss-two-terms", [][]int{{4, 1}, {3, 1, 1, 1}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return SoftplusLoss(nil, ins, []float64{-1, 1})
		}},
		// A CycleGAN-style total: LSGAN term + 10·cycle L1, through
		// Gorgonia's scalar Add and Mul.
		{"lsgan+10-l1", [][]int{{2, 1, 2, 2}, {2, 1, 2, 2}}, 0, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			adv, err := MSETarget(ins[0], 1, nil)
			if err != nil {
				return nil, err
			}
			cyc, err := L1Loss(ins[0], ins[1], nil)
			if err != nil {
				return nil, err
			}
			var lambda any = 10.0
			if cyc.Dtype() == tensor.Float32 {
				lambda = float32(10)
			}
			if cyc, err = gorgonia.Mul(cyc, gorgonia.NewConstant(lambda)); err != nil {
				return nil, err
			}
			return gorgonia.Add(adv, cyc)
		}},
		{"softplusloss-two-terms-scaled", [][]int{{4, 1}, {3, 1, 1, 1}}, scale, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return SoftplusLoss(&scale, ins, []float64{-1, 1})
		}},
	} {
		if tc.scale == 0 {
			checkOpGrad(t, tc.name, tc.shapes, tc.op, nil)
		} else {
			checkScaledGrad(t, tc.name, tc.shapes, tc.scale, tc.op)
		}
		agreeFloat32(t, tc.name, tc.shapes, tc.op)
	}
}

// checkScaledGrad checks that the gradients of the scalar op(inputs), on
// random normal inputs, are scale times the central differences.
func checkScaledGrad(t *testing.T, name string, shapes [][]int, scale float64, op opFunc) {
	t.Helper()
	g := gorgonia.NewGraph()
	rng := rand.New(rand.NewPCG(63, 64))
	ins := make([]*gorgonia.Node, len(shapes))
	for i, s := range shapes {
		ins[i] = input(g, "in"+string(rune('a'+i)), s, normal(rng))
	}
	loss, err := op(ins)
	if err != nil {
		t.Fatal(err)
	}
	sym, err := gradcheck.Symbolic(loss, ins)
	if err != nil {
		t.Fatal(err)
	}
	num, err := gradcheck.Numeric(loss, ins, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range num {
		for j := range v {
			v[j] *= scale
		}
	}
	if err := gradcheck.Compare(ins, sym, num, nil); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

// Hand-computed values: x = 1 2 3 4, y = 0 2 5 3.5, so x - y = 1 0 -2 0.5.
// L1: (1+0+2+0.5)/4 = 0.875, gradient sign(x-y)/4 (0 where x == y).
// MSE: (1+0+4+0.25)/4 = 1.3125, gradient 2(x-y)/4. Against the target 1:
// (0+1+4+9)/4 = 3.5, gradient 2(x-1)/4. All exact in both element types.
func TestLossValues(t *testing.T) {
	x, y := []float64{1, 2, 3, 4}, []float64{0, 2, 5, 3.5}
	for _, tc := range []struct {
		name   string
		op     opFunc
		want   float64
		wantDx []float64
	}{
		{"l1", func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return L1Loss(ins[0], ins[1], nil) },
			0.875, []float64{0.25, 0, -0.25, 0.25}},
		{"mse", func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return MSELoss(ins[0], ins[1], nil) },
			1.3125, []float64{0.5, 0, -1, 0.25}},
		{"mse-target", func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return MSETarget(ins[0], 1, nil) },
			3.5, []float64{0, 0.5, 1, 1.5}},
	} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			shapes, vals := [][]int{{4}, {4}}, [][]float64{x, y}
			if tc.name == "mse-target" {
				shapes, vals = shapes[:1], vals[:1]
			}
			// runOp checks that the loss has element type dt.
			l, grads := runOp(t, dt, shapes, vals, 0, tc.op)
			if l[0] != tc.want {
				t.Errorf("%s %v: loss %v, want %v", tc.name, dt, l[0], tc.want)
			}
			for i, want := range tc.wantDx {
				if grads[0][i] != want {
					t.Errorf("%s %v: d/dx[%d] = %v, want %v", tc.name, dt, i, grads[0][i], want)
				}
				if len(grads) > 1 && grads[1][i] != -want {
					t.Errorf("%s %v: d/dy[%d] = %v, want %v", tc.name, dt, i, grads[1][i], -want)
				}
			}
		}
	}
}

func TestLossErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	a := gorgonia.NewTensor(g, tensor.Float64, 2, gorgonia.WithShape(2, 3))
	b := gorgonia.NewTensor(g, tensor.Float64, 2, gorgonia.WithShape(3, 2))
	for name, f := range map[string]func() error{
		"nn: L1Loss: ":       func() error { _, err := L1Loss(a, b, nil); return err },
		"nn: MSELoss: ":      func() error { _, err := MSELoss(a, b, nil); return err },
		"nn: softplus loss:": func() error { _, err := SoftplusLoss(nil, []*gorgonia.Node{a}, []float64{2}); return err },
	} {
		if err := f(); err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("error %v, want prefix %q", err, name)
		}
	}
	if _, err := SoftplusLoss(nil, []*gorgonia.Node{a, b}, []float64{1}); err == nil {
		t.Error("SoftplusLoss with 2 inputs and 1 sign: no error")
	}
}

// The loss-scaled gradient is the gradient times the scale, and the scale
// is read at every run.
func TestLossGradScale(t *testing.T) {
	for name, loss := range map[string]func(x, y *gorgonia.Node, s *float64) (*gorgonia.Node, error){
		"l1":         L1Loss,
		"mse":        MSELoss,
		"mse-target": func(x, _ *gorgonia.Node, s *float64) (*gorgonia.Node, error) { return MSETarget(x, 0.5, s) },
		"softplus-1": func(x, _ *gorgonia.Node, s *float64) (*gorgonia.Node, error) { return SoftplusMean(x, -1, s) },
		"softplus+1": func(x, _ *gorgonia.Node, s *float64) (*gorgonia.Node, error) { return SoftplusMean(x, 1, s) },
		"softplus-2x": func(x, y *gorgonia.Node, s *float64) (*gorgonia.Node, error) {
			return SoftplusLoss(s, []*gorgonia.Node{x, y}, []float64{1, -1})
		},
	} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			g := gorgonia.NewGraph()
			x := gorgonia.NodeFromAny(g, newParam(dt, []int{4}, func(i int) float64 { return []float64{-2, 0.5, 40, 1}[i] }), gorgonia.WithName("x"))
			y := gorgonia.NodeFromAny(g, newParam(dt, []int{4}, func(i int) float64 { return []float64{1, 0.25, -3, 1}[i] }), gorgonia.WithName("y"))
			s := 1.0
			l, err := loss(x, y, &s)
			if err != nil {
				t.Fatal(err)
			}
			grads, err := gorgonia.Grad(l, x)
			if err != nil {
				t.Fatal(err)
			}
			m := gorgonia.NewTapeMachine(g)
			var got [2][]float64
			for i, scale := range []float64{1, 1024} {
				s = scale
				if err := m.RunAll(); err != nil {
					t.Fatal(err)
				}
				got[i] = floatsOf(grads[0].Value())
				m.Reset()
			}
			m.Close()
			for j := range got[0] {
				if got[1][j] != 1024*got[0][j] {
					t.Errorf("%s %v: scaled gradient %v, want 1024·%v", name, dt, got[1][j], got[0][j])
				}
			}
		}
	}
}

// softplus and sigmoid against their definitions where those are safe,
// and the closed forms at extremes.
func TestSoftplusSafe(t *testing.T) {
	for _, x := range []float64{-30, -3, -0.5, 0, 0.5, 3, 30} {
		if got, want := softplus(x), math.Log(1+math.Exp(x)); math.Abs(got-want) > 1e-15*math.Max(1, want) {
			t.Errorf("softplus(%v) = %v, want %v", x, got, want)
		}
		if got, want := sigmoid(x), 1/(1+math.Exp(-x)); math.Abs(got-want) > 1e-16 {
			t.Errorf("sigmoid(%v) = %v, want %v", x, got, want)
		}
	}
	// softplus(x) = x + log1p(exp(-x)) = x for x > 745 (exp(-x) underflows):
	// the naive log(1+exp(x)) gives +Inf there.
	if got := softplus(1000); got != 1000 {
		t.Errorf("softplus(1000) = %v, want 1000", got)
	}
	if got := softplus(-1000); got != 0 {
		t.Errorf("softplus(-1000) = %v, want 0", got)
	}
	if got := sigmoid(-1000); got != 0 || math.IsNaN(sigmoid(1000)) {
		t.Errorf("sigmoid(-1000) = %v, sigmoid(1000) = %v", got, sigmoid(1000))
	}
}

// TestSoftplusLossBits pins the bits of SoftplusLoss and SoftplusMean
// (values and gradients, float32 and float64, with and without loss
// scaling, logits up to a few hundred) to those of models.SoftplusLoss,
// which they were copied from: the hash below was recorded from it.
func TestSoftplusLossBits(t *testing.T) {
	if got, want := goldenHash(t, nnImpl, 0, 1), "9cc3cacc4f391710"; got != want {
		t.Errorf("hash of the bits %s, want %s", got, want)
	}
}

// goldenImpl holds the functions the golden scenarios use.
type goldenImpl struct {
	SoftplusLoss func(gradScale *float64, xs []*gorgonia.Node, signs []float64) (*gorgonia.Node, error)
	SoftplusMean func(x *gorgonia.Node, sign float64, gradScale *float64) (*gorgonia.Node, error)
	AddRowDot    func(s, h, e *gorgonia.Node) (*gorgonia.Node, error)
}

var nnImpl = goldenImpl{SoftplusLoss, SoftplusMean, AddRowDot}

// goldenHash returns an FNV-64a hash of the bits of the values and
// gradients of scenarios first to last (see goldenRun).
func goldenHash(t *testing.T, im goldenImpl, first, last int) string {
	t.Helper()
	h := fnv.New64a()
	for which := first; which <= last; which++ {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			for seed := uint64(0); seed < 8; seed++ {
				for _, sc := range []float64{0, 1, 3.3, 1024} {
					var sp *float64
					if sc != 0 {
						sp = &sc
					}
					for _, b := range goldenRun(t, im, dt, seed, sp, which) {
						fmt.Fprintf(h, "%x,", b)
					}
				}
			}
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// goldenRun builds scenario which (0: SoftplusLoss of two inputs, 1:
// SoftplusMean, 2: AddRowDot then SoftplusMean) on random inputs from
// seed, runs it twice (the loss scale times 1.37 the second time) and
// returns the bits of the output, the loss and the gradients of each run.
func goldenRun(t *testing.T, im goldenImpl, dt tensor.Dtype, seed uint64, scale *float64, which int) []uint64 {
	t.Helper()
	g := gorgonia.NewGraph()
	mk := func(name string, seed uint64, big bool, shape ...int) *gorgonia.Node {
		rng := rand.New(rand.NewPCG(seed, 3))
		return gorgonia.NodeFromAny(g, newParam(dt, shape, func(i int) float64 {
			v := rng.NormFloat64() * 3
			if big && i%5 == 0 {
				v *= 100
			}
			return v
		}), gorgonia.WithName(name))
	}
	var loss, out *gorgonia.Node
	var wrt []*gorgonia.Node
	var err error
	switch which {
	case 0:
		a, b := mk("a", seed, true, 7, 1), mk("b", seed+1, true, 3, 1, 1, 1)
		loss, err = im.SoftplusLoss(scale, []*gorgonia.Node{a, b}, []float64{-1, 1})
		wrt, out = []*gorgonia.Node{a, b}, loss
	case 1:
		a := mk("a", seed, true, 64)
		loss, err = im.SoftplusMean(a, -1, scale)
		wrt, out = []*gorgonia.Node{a}, loss
	case 2:
		s, h, e := mk("s", seed, false, 5, 1), mk("h", seed+1, false, 5, 37), mk("e", seed+2, false, 5, 37)
		if out, err = im.AddRowDot(s, h, e); err == nil {
			loss, err = im.SoftplusMean(out, 1, scale)
		}
		wrt = []*gorgonia.Node{s, h, e}
	}
	if err != nil {
		t.Fatal(err)
	}
	gs, err := gorgonia.Grad(loss, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	var bits []uint64
	for r := 0; r < 2; r++ {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		for _, n := range append([]*gorgonia.Node{out, loss}, gs...) {
			for _, v := range floatsOf(n.Value()) {
				if dt == tensor.Float32 {
					bits = append(bits, uint64(math.Float32bits(float32(v))))
				} else {
					bits = append(bits, math.Float64bits(v))
				}
			}
		}
		m.Reset()
		if scale != nil {
			*scale *= 1.37
		}
	}
	return bits
}
