package nn

import (
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestSigmoidGradient(t *testing.T) {
	for _, in := range [][]int{{2, 3, 2, 2}, {5, 3}} {
		op := func(ins []*gorgonia.Node) (*gorgonia.Node, error) { return Sigmoid(ins[0]) }
		checkOpGrad(t, "sigmoid", [][]int{in}, op, stepOpts)
		agreeFloat32(t, "sigmoid", [][]int{in}, op)
	}
}

// Hand-computed values: σ(0) = 1/2, σ(±ln 3) = 3/4 and 1/4, with
// derivatives σ(1-σ) = 1/4, 3/16, 3/16; far out σ is 0 or 1 exactly and
// its derivative 0, never NaN, in both element types.
func TestSigmoidValues(t *testing.T) {
	ln3 := math.Log(3)
	x := []float64{0, ln3, -ln3, 800, -800, 1e30, -1e30}
	wantY := []float64{0.5, 0.75, 0.25, 1, 0, 1, 0}
	wantG := []float64{0.25, 3.0 / 16, 3.0 / 16, 0, 0, 0, 0}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		g := gorgonia.NewGraph()
		xn := gorgonia.NodeFromAny(g, newParam(dt, []int{len(x)}, func(i int) float64 { return x[i] }), gorgonia.WithName("x"))
		y, err := Sigmoid(xn)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := gorgonia.Sum(y)
		if err != nil {
			t.Fatal(err)
		}
		grads, err := gorgonia.Grad(loss, xn)
		if err != nil {
			t.Fatal(err)
		}
		run(t, g)
		tol := 1e-15
		if dt == tensor.Float32 {
			tol = 1e-7
		}
		for i, v := range floatsOf(y.Value()) {
			if math.Abs(v-wantY[i]) > tol {
				t.Errorf("%v: Sigmoid(%v) = %v, want %v", dt, x[i], v, wantY[i])
			}
		}
		for i, v := range floatsOf(grads[0].Value()) {
			if math.Abs(v-wantG[i]) > tol {
				t.Errorf("%v: Sigmoid'(%v) = %v, want %v", dt, x[i], v, wantG[i])
			}
		}
	}
}
