package nn

import (
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestRelativisticLossGradients(t *testing.T) {
	scale := 4.0
	for _, tc := range []struct {
		name   string
		shapes [][]int
		sign   float64
		scale  *float64
	}{
		{"d", [][]int{{5, 1}, {5, 1}}, 1, nil},
		{"g", [][]int{{5, 1}, {5, 1}}, -1, nil},
		{"d-patches", [][]int{{2, 1, 2, 3}, {3, 1, 2, 2}}, 1, nil},
		{"g-scaled", [][]int{{4, 1}, {3, 1}}, -1, &scale},
	} {
		op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			return RelativisticLoss(ins[0], ins[1], tc.sign, tc.scale)
		}
		if tc.scale == nil {
			checkOpGrad(t, tc.name, tc.shapes, op, nil)
		} else {
			checkScaledGrad(t, tc.name, tc.shapes, *tc.scale, op)
		}
		agreeFloat32(t, tc.name, tc.shapes, op)
	}
}

// Hand-computed: real = (1, 3), fake = (0, 2): mean real 2, mean fake 1,
// real - mean fake = (0, 2), fake - mean real = (-2, 0). For the
// discriminator (sign +1) the loss is
// ½·(sp(0) + sp(-2))/2 + ½·(sp(-2) + sp(0))/2 = ½·(ln 2 + ln(1 + e⁻²));
// for the generator ½·(sp(0) + sp(2))/2 + ½·(sp(2) + sp(0))/2.
// The gradient of real_1 for the discriminator is
// -σ(0)/4 - (σ(-2) + σ(0))/4/2.
func TestRelativisticLossValues(t *testing.T) {
	sp := func(x float64) float64 { return math.Log1p(math.Exp(x)) }
	sg := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	shapes := [][]int{{2}, {2}}
	vals := [][]float64{{1, 3}, {0, 2}}
	for _, tc := range []struct {
		sign, want, wantDR0 float64
	}{
		{1, 0.5 * (sp(0) + sp(-2)), -sg(0)/4 - (sg(-2)+sg(0))/8},
		{-1, 0.5 * (sp(0) + sp(2)), sg(0)/4 + (sg(2)+sg(0))/8},
	} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			y, gs := runOp(t, dt, shapes, vals, 1, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
				return RelativisticLoss(ins[0], ins[1], tc.sign, nil)
			})
			tol := 1e-15
			if dt == tensor.Float32 {
				tol = 1e-7
			}
			if math.Abs(y[0]-tc.want) > tol {
				t.Errorf("sign %v %v: loss %v, want %v", tc.sign, dt, y[0], tc.want)
			}
			if math.Abs(gs[0][0]-tc.wantDR0) > tol {
				t.Errorf("sign %v %v: d/d real_0 = %v, want %v", tc.sign, dt, gs[0][0], tc.wantDR0)
			}
		}
	}
	// Equal logits everywhere: ln 2 whatever the sign.
	y, _ := runOp(t, tensor.Float64, [][]int{{3}, {1}}, [][]float64{{0.5, 0.5, 0.5}, {0.5}}, 1, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
		return RelativisticLoss(ins[0], ins[1], -1, nil)
	})
	if math.Abs(y[0]-math.Ln2) > 1e-15 {
		t.Errorf("equal logits: %v, want ln 2", y[0])
	}
	if _, err := RelativisticLoss(gorgonia.NewScalar(gorgonia.NewGraph(), tensor.Float64), nil, 2, nil); err == nil {
		t.Error("sign 2 accepted")
	}
}

func TestGate(t *testing.T) {
	w := 0.25
	op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
		l, err := L1Loss(ins[0], ins[1], nil)
		if err != nil {
			return nil, err
		}
		return Gate(l, &w)
	}
	shapes := [][]int{{2, 3}, {2, 3}}
	checkOpGrad(t, "gate-l1", shapes, op, nil)
	agreeFloat32(t, "gate-l1", shapes, op)
	vals := [][]float64{{1, 2, 3, 4, 5, 6}, {0, 0, 0, 0, 0, 0}}
	for _, tc := range []struct{ w, want float64 }{{0.25, 3.5 * 0.25}, {0, 0}, {2, 7}} {
		w = tc.w
		y, gs := runOp(t, tensor.Float64, shapes, vals, 1, op)
		if y[0] != tc.want || gs[0][0] != tc.w/6 {
			t.Errorf("w %v: loss %v, gradient %v; want %v, %v", tc.w, y[0], gs[0][0], tc.want, tc.w/6)
		}
	}
	if _, err := Gate(gorgonia.NewScalar(gorgonia.NewGraph(), tensor.Float64), nil); err == nil {
		t.Error("nil weight accepted")
	}
}
