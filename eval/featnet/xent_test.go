package featnet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func dense64(shape []int, vals []float64) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(vals))
}

// TestXentValues checks the loss and its gradient on values worked out by
// hand: softmax([0, ln 3]) = [1/4, 3/4].
func TestXentValues(t *testing.T) {
	for _, tc := range []struct {
		name           string
		z, t           []float64
		loss           float64
		grad           []float64 // d loss_0 / dz
		scale          float64
		gradIsScaledBy float64
	}{
		{"class 1", []float64{0, math.Log(3)}, []float64{0, 1}, math.Log(4.0 / 3), []float64{0.25, -0.25}, 1, 1},
		{"class 0", []float64{0, math.Log(3)}, []float64{1, 0}, math.Log(4), []float64{-0.75, 0.75}, 1, 1},
		{"soft target", []float64{0, math.Log(3)}, []float64{0.5, 0.5}, math.Log(4) - 0.5*math.Log(3), []float64{-0.25, 0.25}, 1, 1},
		// exp(1000) overflows float64: the max must be subtracted.
		{"large, right", []float64{1000, 0}, []float64{1, 0}, math.Log1p(math.Exp(-1000)), []float64{0, 0}, 1, 1},
		{"large, wrong", []float64{1000, 0}, []float64{0, 1}, 1000, []float64{1, -1}, 1, 1},
		{"loss scale", []float64{0, math.Log(3)}, []float64{0, 1}, math.Log(4.0 / 3), []float64{0.25, -0.25}, 1024, 1024},
	} {
		g := gorgonia.NewGraph()
		z := gorgonia.NodeFromAny(g, dense64([]int{1, 2}, tc.z), gorgonia.WithName("z"))
		tg := gorgonia.NodeFromAny(g, dense64([]int{1, 2}, tc.t), gorgonia.WithName("t"))
		scale := tc.scale
		per, err := softmaxXent(z, tg, &scale)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := gorgonia.Sum(per)
		if err != nil {
			t.Fatal(err)
		}
		grads, err := gorgonia.Grad(loss, z)
		if err != nil {
			t.Fatal(err)
		}
		m := gorgonia.NewTapeMachine(g)
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		m.Close()
		if got := loss.Value().Data().(float64); math.Abs(got-tc.loss) > 1e-12 {
			t.Errorf("%s: loss %.17g, want %.17g", tc.name, got, tc.loss)
		}
		gd := grads[0].Value().Data().([]float64)
		for i, w := range tc.grad {
			if math.Abs(gd[i]-w*tc.gradIsScaledBy) > 1e-12*tc.gradIsScaledBy {
				t.Errorf("%s: grad[%d] = %.17g, want %.17g", tc.name, i, gd[i], w*tc.gradIsScaledBy)
			}
		}
	}
}

// TestXentGradient checks the gradient against central differences on
// random logits and soft targets, weighting each sample's loss.
func TestXentGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, k = 4, 5
	z := make([]float64, n*k)
	for i := range z {
		z[i] = 3 * rng.NormFloat64()
	}
	tv := make([]float64, n*k)
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < k; j++ {
			tv[i*k+j] = rng.Float64()
			s += tv[i*k+j]
		}
		for j := 0; j < k; j++ {
			tv[i*k+j] /= s
		}
	}
	c := []float64{1, -0.5, 2, 0.25}
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		zn := gorgonia.NodeFromAny(g, dense64([]int{n, k}, append([]float64(nil), z...)), gorgonia.WithName("z"))
		tn := gorgonia.NodeFromAny(g, dense64([]int{n, k}, append([]float64(nil), tv...)), gorgonia.WithName("t"))
		per, err := softmaxXent(zn, tn, nil)
		if err != nil {
			return nil, nil, err
		}
		cn := gorgonia.NodeFromAny(g, dense64([]int{n}, c), gorgonia.WithName("c"))
		w, err := gorgonia.HadamardProd(per, cn)
		if err != nil {
			return nil, nil, err
		}
		loss, err := gorgonia.Sum(w)
		return loss, []*gorgonia.Node{zn}, err
	}, nil)
	if err != nil {
		t.Error(err)
	}
}

func TestXentShapeError(t *testing.T) {
	g := gorgonia.NewGraph()
	z := gorgonia.NodeFromAny(g, dense64([]int{2, 3}, make([]float64, 6)))
	tg := gorgonia.NodeFromAny(g, dense64([]int{3, 2}, make([]float64, 6)))
	if _, err := softmaxXent(z, tg, nil); err == nil {
		t.Error("mismatched shapes: no error")
	}
}
