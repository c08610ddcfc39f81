package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/positgan/positgan/compute"
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

// TestFwdChunks checks that a forward product whose weights are rounded a
// chunk of rows at a time (fwdJob), on one goroutine or several, has the
// bits of rounding all the weights, then the product.
func TestFwdChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	for _, name := range []string{"posit(8,1,scale=4)", "fp8-e4m3", "posit(16,1)"} {
		q := compute.NewRounder(quant.MustParse(name), quant.Nearest, nil)
		for _, sz := range [][3]int{{64, 786, 512}, {64, 1026, 784}, {7, 33, 50}, {64, 2, 513}} {
			n, in, out := sz[0], sz[1], sz[2]
			w, x := make([]float32, out*in), make([]float32, n*in)
			for i := range w {
				w[i] = float32(rng.NormFloat64() * 0.05)
			}
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			wq := make([]float32, out*in)
			q.Round(wq, w)
			want := make([]float32, n*out)
			compute.Gemm(false, true, n, out, in, 1, x, in, wq, in, 0, want, out)
			for _, procs := range []int{1, 2, 3} {
				prev := runtime.GOMAXPROCS(procs)
				got, gotq := make([]float32, n*out), make([]float32, out*in)
				j := fwdJob[float32]{q: q, w: w, wq: gotq, x: x, y: got, n: n, in: in, out: out, rows: fwdRows(in)}
				compute.ForRanges((out+j.rows-1)/j.rows, 1, &j)
				runtime.GOMAXPROCS(prev)
				for i := range wq {
					if math.Float32bits(gotq[i]) != math.Float32bits(wq[i]) {
						t.Fatalf("%s %v procs %d: wq[%d] = %g, want %g", name, sz, procs, i, gotq[i], wq[i])
					}
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s %v procs %d: y[%d] = %g, want %g", name, sz, procs, i, got[i], want[i])
					}
				}
			}
		}
	}
}
