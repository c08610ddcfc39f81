package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// runLayer runs one layer case with element type dt on the given input,
// weights, bias and output gradient (all float32 values), and returns the
// output and the input, weight and bias gradients as float64.
func runLayer(t *testing.T, lc layerCase, f LayerFormats, dt tensor.Dtype, x, w, b, dy []float64) [][]float64 {
	t.Helper()
	g := gorgonia.NewGraph()
	fwd, ps, err := lc.build(g, f, WithDtype(dt))
	if err != nil {
		t.Fatal(err)
	}
	set := func(v gorgonia.Value, s []float64) {
		switch d := v.Data().(type) {
		case []float32:
			for i := range d {
				d[i] = float32(s[i])
			}
		case []float64:
			copy(d, s)
		}
	}
	set(ps[0].Value(), w)
	set(ps[1].Value(), b)
	xt := tensor.New(tensor.Of(dt), tensor.WithShape(lc.in...))
	set(xt, x)
	xn := gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x"))
	y, err := fwd(xn)
	if err != nil {
		t.Fatal(err)
	}
	n := y.Shape().TotalSize()
	flat, err := gorgonia.Reshape(y, tensor.Shape{n})
	if err != nil {
		t.Fatal(err)
	}
	ct := tensor.New(tensor.Of(dt), tensor.WithShape(n))
	set(ct, dy)
	p, err := gorgonia.HadamardProd(flat, gorgonia.NodeFromAny(g, ct, gorgonia.WithName("c")))
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(p)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(loss, append(gorgonia.Nodes{xn}, ps...)...)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	out := [][]float64{f64s(y.Value())}
	for _, gn := range grads {
		out = append(out, f64s(gn.Value()))
	}
	return out
}

func f64s(v gorgonia.Value) []float64 {
	switch d := v.Data().(type) {
	case []float32:
		s := make([]float64, len(d))
		for i, x := range d {
			s[i] = float64(x)
		}
		return s
	case []float64:
		return append([]float64(nil), d...)
	}
	return nil
}

// TestLayerAccumulationFloat32 checks that the float32 kernels of quire
// and per-op accumulation (the fast DGEMM-based quire among them) give the
// same bits as the float64 reference kernels, for every layer, on the
// same float32 values with posit(8,1) formats: both compute the exact (or
// the sequentially rounded) sums rounded once, so they must agree.
func TestLayerAccumulationFloat32(t *testing.T) {
	p8 := quant.MustParse("posit(8,1)")
	w8, _ := quant.Scale(p8, 3)
	q8, qw8 := Quantizer{Format: p8}, Quantizer{Format: w8}
	for _, acc := range []quant.Accumulation{quant.AccumQuire, quant.AccumPerOp} {
		f := LayerFormats{Weight: qw8, Act: q8, Out: q8, Err: q8, WGrad: qw8, Accum: acc}
		for _, lc := range layerCases {
			// The output and weight shapes, from a float64 build.
			g := gorgonia.NewGraph()
			fwd, ps, err := lc.build(g, f, WithDtype(tensor.Float64))
			if err != nil {
				t.Fatal(err)
			}
			y, err := fwd(gorgonia.NewTensor(g, tensor.Float64, len(lc.in), gorgonia.WithShape(lc.in...)))
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(61, 62))
			vals := func(n int, s float64) []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = float64(float32(rng.NormFloat64() * s))
				}
				return v
			}
			x := vals(prod(lc.in), 1)
			w := vals(ps[0].Shape().TotalSize(), 0.2)
			b := vals(ps[1].Shape().TotalSize(), 0.1)
			dy := vals(y.Shape().TotalSize(), 1)
			r32 := runLayer(t, lc, f, tensor.Float32, x, w, b, dy)
			r64 := runLayer(t, lc, f, tensor.Float64, x, w, b, dy)
			for k, what := range []string{"y", "dx", "dw", "db"} {
				for i := range r64[k] {
					if r32[k][i] != r64[k][i] && !(math.IsNaN(r32[k][i]) && math.IsNaN(r64[k][i])) {
						t.Errorf("%v %s %s[%d]: float32 %v, float64 %v", acc, lc.name, what, i, r32[k][i], r64[k][i])
						break
					}
				}
			}
		}
	}
}
