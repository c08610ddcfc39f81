package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// layerCase builds one layer in g for the tests below.
type layerCase struct {
	name  string
	in    []int // input shape
	build func(g *gorgonia.ExprGraph, f LayerFormats, opts ...Option) (fwd func(*gorgonia.Node) (*gorgonia.Node, error), ps gorgonia.Nodes, err error)
	// ref computes the float64 output from the definition, and the input,
	// weight and bias gradients given the output gradient dy.
	ref func(x, w, b []float64, in []int) (y []float64, back func(dy []float64) (dx, dw, db []float64))
}

var layerCases = []layerCase{
	{
		name: "linear", in: []int{3, 5},
		build: func(g *gorgonia.ExprGraph, f LayerFormats, opts ...Option) (func(*gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
			l, err := NewLinear(g, "fc", 5, 4, f, opts...)
			if err != nil {
				return nil, nil, err
			}
			return l.Fwd, l.Params(), nil
		},
		ref: refLinear,
	},
	{
		name: "conv2d-s2p1", in: []int{2, 2, 5, 5},
		build: func(g *gorgonia.ExprGraph, f LayerFormats, opts ...Option) (func(*gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
			c, err := NewConv2d(g, "conv", 2, 3, 3, 2, 1, f, opts...)
			if err != nil {
				return nil, nil, err
			}
			return c.Fwd, c.Params(), nil
		},
		ref: func(x, w, b []float64, in []int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
			return refConv(x, w, b, in, 3, 3, 2, 1)
		},
	},
	{
		name: "conv2d-k4s2p1", in: []int{2, 1, 6, 6},
		build: func(g *gorgonia.ExprGraph, f LayerFormats, opts ...Option) (func(*gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
			c, err := NewConv2d(g, "conv", 1, 2, 4, 2, 1, f, opts...)
			if err != nil {
				return nil, nil, err
			}
			return c.Fwd, c.Params(), nil
		},
		ref: func(x, w, b []float64, in []int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
			return refConv(x, w, b, in, 2, 4, 2, 1)
		},
	},
	{
		name: "convT-k4s2p1", in: []int{2, 2, 3, 3},
		build: func(g *gorgonia.ExprGraph, f LayerFormats, opts ...Option) (func(*gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
			c, err := NewConvTranspose2d(g, "convt", 2, 3, 4, 2, 1, 0, f, opts...)
			if err != nil {
				return nil, nil, err
			}
			return c.Fwd, c.Params(), nil
		},
		ref: func(x, w, b []float64, in []int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
			return refConvT(x, w, b, in, 3, 4, 2, 1, 0)
		},
	},
	{
		name: "convT-k3s2p1op1", in: []int{1, 2, 3, 2},
		build: func(g *gorgonia.ExprGraph, f LayerFormats, opts ...Option) (func(*gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
			c, err := NewConvTranspose2d(g, "convt", 2, 2, 3, 2, 1, 1, f, opts...)
			if err != nil {
				return nil, nil, err
			}
			return c.Fwd, c.Params(), nil
		},
		ref: func(x, w, b []float64, in []int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
			return refConvT(x, w, b, in, 2, 3, 2, 1, 1)
		},
	},
}

func TestLayerGradients(t *testing.T) {
	for _, lc := range layerCases {
		for _, fc := range []struct {
			name string
			f    LayerFormats
		}{
			{"fp", LayerFormats{}},
			{"posit32", wideFormats(quant.AccumFP32)},
			{"posit32-quire", wideFormats(quant.AccumQuire)},
			{"posit32-perop", wideFormats(quant.AccumPerOp)},
		} {
			checkGrad(t, lc.name+" "+fc.name, func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
				rng := rand.New(rand.NewPCG(11, 12))
				fwd, ps, err := lc.build(g, fc.f, WithDtype(tensor.Float64), WithSeed(5))
				if err != nil {
					return nil, nil, err
				}
				// Random biases, so that their gradients and the adds are checked.
				fillRand(ps[1].Value().Data().([]float64), rng)
				x := input(g, "x", lc.in, normal(rng))
				y, err := fwd(x)
				if err != nil {
					return nil, nil, err
				}
				loss, err := dotLoss(y, rng)
				return loss, append(gorgonia.Nodes{x}, ps...), err
			}, optsFor(fc.f))
		}
	}
}

func fillRand(s []float64, rng *rand.Rand) {
	for i := range s {
		s[i] = rng.NormFloat64()
	}
}

// TestLayerQuantizedReference runs each layer with posit(8,1) formats on
// float64 data and compares its output and gradients bit for bit with the
// definition: y = Out(Σ Act(x)·Weight(w) + b), dx = Err(Σ Err(dy)·Weight(w)),
// dw = WGrad(Σ Err(dy)·Act(x)), db = WGrad(Σ Err(dy)). Sums of products of
// 8-bit posits are exact in float64, so the order of summation does not
// matter.
func TestLayerQuantizedReference(t *testing.T) {
	p8 := quant.MustParse("posit(8,1)")
	w8, err := quant.Scale(p8, 3)
	if err != nil {
		t.Fatal(err)
	}
	e8, _ := quant.Scale(p8, -2)
	f := LayerFormats{Weight: Quantizer{Format: w8}, Act: Quantizer{Format: p8}, Out: Quantizer{Format: p8},
		Err: Quantizer{Format: e8}, WGrad: Quantizer{Format: w8}}
	for _, lc := range layerCases {
		g := gorgonia.NewGraph()
		rng := rand.New(rand.NewPCG(21, 22))
		fwd, ps, err := lc.build(g, f, WithDtype(tensor.Float64), WithSeed(9))
		if err != nil {
			t.Fatal(err)
		}
		fillRand(ps[1].Value().Data().([]float64), rng)
		x := input(g, "x", lc.in, normal(rng))
		y, err := fwd(x)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := dotLoss(y, rng)
		if err != nil {
			t.Fatal(err)
		}
		wrt := append(gorgonia.Nodes{x}, ps...)
		grads, err := gorgonia.Grad(loss, wrt...)
		if err != nil {
			t.Fatal(err)
		}
		m := gorgonia.NewTapeMachine(g)
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		m.Close()
		// The loss is Σ y·c: dy = c.
		var c []float64
		for _, n := range g.AllNodes() {
			if n.Name() == "c" {
				c = n.Value().Data().([]float64)
			}
		}
		q := func(f quant.Format, s []float64) []float64 {
			d := make([]float64, len(s))
			for i, v := range s {
				d[i] = f.Round64(v)
			}
			return d
		}
		xv := x.Value().Data().([]float64)
		wv := ps[0].Value().Data().([]float64)
		bv := ps[1].Value().Data().([]float64)
		yRef, back := lc.ref(q(p8, xv), q(w8, wv), bv, lc.in)
		dx, dw, db := back(q(e8, c))
		want := [][]float64{q(p8, yRef), q(e8, dx), q(w8, dw), q(w8, db)}
		got := [][]float64{y.Value().Data().([]float64)}
		for _, gn := range grads {
			got = append(got, gn.Value().Data().([]float64))
		}
		for k, what := range []string{"y", "dx", "dw", "db"} {
			if len(got[k]) != len(want[k]) {
				t.Fatalf("%s %s: %d elements, want %d", lc.name, what, len(got[k]), len(want[k]))
			}
			for i := range want[k] {
				if got[k][i] != want[k][i] {
					t.Errorf("%s %s[%d] = %v, want %v", lc.name, what, i, got[k][i], want[k][i])
					break
				}
			}
		}
	}
}

func refLinear(x, w, b []float64, in []int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
	n, k := in[0], in[1]
	out := len(b)
	y := make([]float64, n*out)
	for i := 0; i < n; i++ {
		for o := 0; o < out; o++ {
			s := b[o]
			for j := 0; j < k; j++ {
				s += x[i*k+j] * w[o*k+j]
			}
			y[i*out+o] = s
		}
	}
	return y, func(dy []float64) ([]float64, []float64, []float64) {
		dx, dw, db := make([]float64, len(x)), make([]float64, len(w)), make([]float64, len(b))
		for i := 0; i < n; i++ {
			for o := 0; o < out; o++ {
				d := dy[i*out+o]
				db[o] += d
				for j := 0; j < k; j++ {
					dx[i*k+j] += d * w[o*k+j]
					dw[o*k+j] += d * x[i*k+j]
				}
			}
		}
		return dx, dw, db
	}
}

// refConv is the direct convolution y[b][o][oy][ox] = bias[o] +
// Σ x[b][c][oy·s-p+i][ox·s-p+j]·w[o][c][i][j], and its adjoints.
func refConv(x, w, bias []float64, in []int, outC, k, s, p int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
	n, c, h, wd := in[0], in[1], in[2], in[3]
	oh, ow := (h+2*p-k)/s+1, (wd+2*p-k)/s+1
	var taps []tap
	for b := 0; b < n; b++ {
		for o := 0; o < outC; o++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					for ch := 0; ch < c; ch++ {
						for i := 0; i < k; i++ {
							for j := 0; j < k; j++ {
								iy, ix := oy*s-p+i, ox*s-p+j
								if iy < 0 || iy >= h || ix < 0 || ix >= wd {
									continue
								}
								taps = append(taps, tap{((b*c+ch)*h+iy)*wd + ix, ((o*c+ch)*k+i)*k + j, ((b*outC+o)*oh+oy)*ow + ox})
							}
						}
					}
				}
			}
		}
	}
	return refTaps(x, w, bias, taps, n, outC, oh*ow)
}

// refConvT is the transposed convolution by its definition: each input
// pixel x[b][c][iy][ix] adds x·w[c][o][i][j] to y[b][o][iy·s-p+i][ix·s-p+j].
func refConvT(x, w, bias []float64, in []int, outC, k, s, p, op int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
	n, c, h, wd := in[0], in[1], in[2], in[3]
	oh, ow := (h-1)*s-2*p+k+op, (wd-1)*s-2*p+k+op
	var taps []tap
	for b := 0; b < n; b++ {
		for ch := 0; ch < c; ch++ {
			for iy := 0; iy < h; iy++ {
				for ix := 0; ix < wd; ix++ {
					for o := 0; o < outC; o++ {
						for i := 0; i < k; i++ {
							for j := 0; j < k; j++ {
								y, xx := iy*s-p+i, ix*s-p+j
								if y < 0 || y >= oh || xx < 0 || xx >= ow {
									continue
								}
								taps = append(taps, tap{((b*c+ch)*h+iy)*wd + ix, ((ch*outC+o)*k+i)*k + j, ((b*outC+o)*oh+y)*ow + xx})
							}
						}
					}
				}
			}
		}
	}
	return refTaps(x, w, bias, taps, n, outC, oh*ow)
}

// tap says that x[xi]·w[wi] adds to y[yi].
type tap struct{ xi, wi, yi int }

// refTaps evaluates y = bias + Σ x·w over the listed (x, w, y) index
// triples, and the adjoints.
func refTaps(x, w, bias []float64, taps []tap, n, outC, hw int) ([]float64, func([]float64) ([]float64, []float64, []float64)) {
	y := make([]float64, n*outC*hw)
	for i := range y {
		y[i] = bias[i/hw%outC]
	}
	for _, t := range taps {
		y[t.yi] += x[t.xi] * w[t.wi]
	}
	return y, func(dy []float64) ([]float64, []float64, []float64) {
		dx, dw, db := make([]float64, len(x)), make([]float64, len(w)), make([]float64, len(bias))
		for i, d := range dy {
			db[i/hw%outC] += d
		}
		for _, t := range taps {
			dx[t.xi] += dy[t.yi] * w[t.wi]
			dw[t.wi] += dy[t.yi] * x[t.xi]
		}
		return dx, dw, db
	}
}

func ExampleNewConv2d() {
	g := gorgonia.NewGraph()
	// A 2×2 all-ones kernel over a 3×3 image of ones: every output is 4.
	c, _ := NewConv2d(g, "conv", 1, 1, 2, 1, 0, LayerFormats{}, WithoutBias())
	for i := range c.W.Value().Data().([]float32) {
		c.W.Value().Data().([]float32)[i] = 1
	}
	x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(1, 1, 3, 3), tensor.WithBacking([]float32{1, 1, 1, 1, 1, 1, 1, 1, 1})))
	y, _ := c.Fwd(x)
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(y.Shape(), y.Value().Data())
	// Output: (1, 1, 2, 2) [4 4 4 4]
}
