package nn

import (
	"testing"

	"gorgonia.org/gorgonia"
)

// WeightedSum of a least-squares term, 10·L1 and a softplus term: the
// gradients agree with finite differences, and float32 with float64.
func TestWeightedSumGradients(t *testing.T) {
	op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
		adv, err := MSETarget(ins[0], 1, nil)
		if err != nil {
			return nil, err
		}
		cyc, err := L1Loss(ins[0], ins[1], nil)
		if err != nil {
			return nil, err
		}
		sp, err := SoftplusMean(ins[1], -1, nil)
		if err != nil {
			return nil, err
		}
		return WeightedSum([]float64{1, 10, 0.5}, adv, cyc, sp)
	}
	shapes := [][]int{{2, 1, 2, 2}, {2, 1, 2, 2}}
	checkOpGrad(t, "weighted-sum", shapes, op, nil)
	agreeFloat32(t, "weighted-sum", shapes, op)
}

func TestWeightedSumErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, gorgonia.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("x"))
	if _, err := WeightedSum([]float64{1}, x); err == nil {
		t.Error("a matrix term: no error")
	}
	if _, err := WeightedSum([]float64{1, 2}); err == nil {
		t.Error("no terms: no error")
	}
}
