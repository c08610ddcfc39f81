package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestLinearGradient(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    LayerFormats
		bias bool
	}{
		{"fp", LayerFormats{}, true},
		{"fp-nobias", LayerFormats{}, false},
		{"posit32", wideFormats(quant.AccumFP32), true},
		{"posit32-quire", wideFormats(quant.AccumQuire), true},
		{"posit32-perop", wideFormats(quant.AccumPerOp), true},
	} {
		checkGrad(t, "linear "+tc.name, func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(7, 8))
			opts := []Option{WithDtype(tensor.Float64), WithSeed(3)}
			if !tc.bias {
				opts = append(opts, WithoutBias())
			}
			l, err := NewLinear(g, "fc", 6, 4, tc.f, opts...)
			if err != nil {
				return nil, nil, err
			}
			x := input(g, "x", []int{3, 2, 3}, normal(rng))
			y, err := l.Fwd(x)
			if err != nil {
				return nil, nil, err
			}
			loss, err := dotLoss(y, rng)
			return loss, append(gorgonia.Nodes{x}, l.Params()...), err
		}, optsFor(tc.f))
	}
}

func ExampleNewLinear() {
	g := gorgonia.NewGraph()
	p8 := Quantizer{Format: quant.MustParse("posit(8,1)")}
	f := LayerFormats{Act: p8, Weight: p8}
	l, _ := NewLinear(g, "fc", 3, 2, f)
	copy(l.W.Value().Data().([]float32), []float32{1, 2, 3, 0.5, 0.25, 0.125})
	x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float32{1, 1.03, -1})))
	y, _ := l.Fwd(x)
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		fmt.Println(err)
	}
	// 1.03 rounds to posit(8,1)'s 1 (neighbours 1 and 1.0625).
	fmt.Println(y.Value().Data())
	// Output: [0 0.625]
}
