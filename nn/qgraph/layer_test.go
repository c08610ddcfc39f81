package qgraph

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func mkPolicy(t testing.TB, settings ...string) *policy.Policy {
	t.Helper()
	p := &policy.Policy{}
	for _, s := range settings {
		if err := p.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// grid returns n values k/8 in [-lim, lim], an irregular deterministic
// sequence: coarse enough that sums of products stay exact in the formats
// the gradient checks use.
func grid(n int, seed int, lim float64) []float64 {
	v := make([]float64, n)
	steps := int(lim * 8)
	for i := range v {
		k := int(math.Floor(math.Abs(math.Sin(float64(seed*7919+i*31+1))) * float64(2*steps+1)))
		v[i] = float64(k-steps) / 8
	}
	return v
}

// quantizers returns the String of every quantization node in g.
func quantizers(g *gorgonia.ExprGraph) []string {
	var s []string
	for _, n := range g.AllNodes() {
		if _, ok := n.Op().(*quantizeOp); ok {
			s = append(s, n.Op().String())
		}
	}
	slices.Sort(s)
	return s
}

// straightThrough rounds the forward pass to posit(16,1), which is the
// identity on the grid values of these tests, and passes gradients
// straight through.
var straightThrough = []string{"all=posit(16,1)", "err=none", "wgrad=none"}

func TestLayerGradStraightThrough(t *testing.T) {
	p := mkPolicy(t, straightThrough...)
	opts := &gradcheck.Options{Step: 1.0 / 8, RelTol: 1e-12, AbsTol: 1e-12}
	tests := []struct {
		name   string
		build  gradcheck.Builder
		nquant int
	}{
		{"Mul", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			a := input(g, "a", []int{3, 4}, grid(12, 1, 1))
			w := input(g, "w", []int{4, 2}, grid(8, 2, 1))
			y, err := Mul(p, "fc", a, w)
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 3)
			return l, []*gorgonia.Node{a, w}, err
		}, 3},
		{"Mul matrix-vector", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			a := input(g, "a", []int{3, 4}, grid(12, 13, 1))
			w := input(g, "w", []int{4}, grid(4, 14, 1))
			y, err := Mul(p, "fc", a, w)
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 15)
			return l, []*gorgonia.Node{a, w}, err
		}, 3},
		{"Conv2d", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			x := input(g, "x", []int{1, 2, 4, 4}, grid(32, 4, 1))
			w := input(g, "w", []int{2, 2, 3, 3}, grid(36, 5, 1))
			y, err := Conv2d(p, "conv", x, w, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1})
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 6)
			return l, []*gorgonia.Node{x, w}, err
		}, 3},
		{"BatchedMatMul", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			a := input(g, "a", []int{2, 3, 4}, grid(24, 7, 1))
			b := input(g, "b", []int{2, 4, 2}, grid(16, 8, 1))
			y, err := BatchedMatMul(p, "bmm", a, b, Act, Act, false, false)
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 9)
			return l, []*gorgonia.Node{a, b}, err
		}, 3},
		{"BatchedMatMul transposed", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			a := input(g, "a", []int{2, 4, 3}, grid(24, 10, 1))
			b := input(g, "b", []int{2, 2, 4}, grid(16, 11, 1))
			y, err := BatchedMatMul(p, "bmm", a, b, Act, Weight, true, true)
			if err != nil {
				return nil, nil, err
			}
			l, err := weightedSum(y, 12)
			return l, []*gorgonia.Node{a, b}, err
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var built *gorgonia.ExprGraph
			err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
				built = g
				return tt.build(g)
			}, opts)
			if err != nil {
				t.Error(err)
			}
			if q := quantizers(built); len(q) != tt.nquant {
				t.Errorf("quantizers %v, want %d", q, tt.nquant)
			}
		})
	}
}

// TestMLPGrad checks a two-layer MLP, leaky(x·W1)·W2, through the
// wrappers. Everything is on a grid posit(32,2) holds exactly; x has a
// constant column 1 and W1's last row odd multiples of 1/128, so no
// pre-activation is within 1/128 of LeakyRelu's kink, further than a
// finite-difference step of 2^-10 can move it.
func TestMLPGrad(t *testing.T) {
	p := mkPolicy(t, "all=posit(32,2)", "err=none", "wgrad=none")
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		xv := grid(8, 7, 0.5)
		xv[3], xv[7] = 1, 1 // bias column
		w1v := grid(16, 8, 0.5)
		for j := 12; j < 16; j++ {
			w1v[j] = float64(2*(j-12)-3) / 128
		}
		x := input(g, "x", []int{2, 4}, xv)
		w1 := input(g, "l1/w", []int{4, 4}, w1v)
		w2 := input(g, "l2/w", []int{4, 3}, grid(12, 9, 0.5))
		h, err := Mul(p, "l1", x, w1)
		if err != nil {
			return nil, nil, err
		}
		if h, err = gorgonia.LeakyRelu(h, 0.5); err != nil {
			return nil, nil, err
		}
		y, err := Mul(p, "l2", h, w2)
		if err != nil {
			return nil, nil, err
		}
		l, err := weightedSum(y, 10)
		return l, []*gorgonia.Node{x, w1, w2}, err
	}, &gradcheck.Options{Step: 0x1p-10, RelTol: 1e-10, AbsTol: 1e-12})
	if err != nil {
		t.Error(err)
	}
}

// TestMulDefinition checks the forward and backward passes of a quantized
// Mul against the definition, computed here with plain loops:
//
//	y  = round_out(Σ round_act(a) · round_w(w))
//	e  = round_err(c)                  (c = dL/dy for L = sum(c ⊙ y))
//	da = round_err(Σ e · round_w(w)ᵀ)
//	dw = round_wgrad(Σ round_act(a)ᵀ · e)
//
// With fp32 and quire accumulation Σ is the exact sum (the sums here are
// of at most 4 products of 8-bit values: exact in float64 and float32).
// With per-op accumulation every product and partial sum is rounded to
// the result's format, in order.
func TestMulDefinition(t *testing.T) {
	fw, fa, fo := quant.MustParse("posit(8,1,scale=2)"), quant.MustParse("posit(8,1)"), quant.MustParse("posit(8,0)")
	fe, fg := quant.MustParse("posit(8,2)"), quant.MustParse("posit(16,1,scale=3)")
	const m, k, n = 3, 4, 2
	av, wv, cv := make([]float64, m*k), make([]float64, k*n), make([]float64, m*n)
	for i := range av {
		av[i] = math.Sin(float64(i) + 0.5)
	}
	for i := range wv {
		wv[i] = 0.3 * math.Cos(float64(i)*1.7)
	}
	for i := range cv {
		cv[i] = math.Sin(float64(i)*2.3) / 8
	}
	round := func(f quant.Format, v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = f.Round64(x)
		}
		return out
	}
	for _, acc := range []string{"fp32", "quire", "per-op"} {
		t.Run(acc, func(t *testing.T) {
			p := mkPolicy(t, "weight="+fw.String(), "act="+fa.String(), "out="+fo.String(), "err="+fe.String(), "wgrad="+fg.String(), "accum="+acc)
			// sum returns Σ x(l)·y(l) for l < k, per-op rounded to f if acc is per-op.
			sum := func(f quant.Format, k int, x, y func(l int) float64) float64 {
				var s float64
				for l := range k {
					if acc != "per-op" {
						s += x(l) * y(l)
					} else if l == 0 {
						s = f.Round64(x(l) * y(l))
					} else {
						s = f.Round64(s + f.Round64(x(l)*y(l)))
					}
				}
				return s
			}
			g := gorgonia.NewGraph()
			a, w := input(g, "a", []int{m, k}, av), input(g, "w", []int{k, n}, wv)
			c := input(g, "c", []int{m, n}, cv)
			y, err := Mul(p, "fc", a, w)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := weightedBy(y, c)
			if err != nil {
				t.Fatal(err)
			}
			sym, err := gradcheck.Symbolic(loss, []*gorgonia.Node{a, w})
			if err != nil {
				t.Fatal(err)
			}
			gotY := valueFloats(y.Value())

			aq, wq, e := round(fa, av), round(fw, wv), round(fe, cv)
			wantY := make([]float64, m*n)
			for i := range m {
				for j := range n {
					wantY[i*n+j] = sum(fo, k, func(l int) float64 { return aq[i*k+l] }, func(l int) float64 { return wq[l*n+j] })
				}
			}
			da := make([]float64, m*k)
			for i := range m {
				for l := range k {
					da[i*k+l] = sum(fe, n, func(j int) float64 { return e[i*n+j] }, func(j int) float64 { return wq[l*n+j] })
				}
			}
			dw := make([]float64, k*n)
			for l := range k {
				for j := range n {
					dw[l*n+j] = sum(fg, m, func(i int) float64 { return aq[i*k+l] }, func(i int) float64 { return e[i*n+j] })
				}
			}
			wantY, da, dw = round(fo, wantY), round(fe, da), round(fg, dw)
			if !slices.Equal(gotY, wantY) {
				t.Errorf("y = %v, want %v", gotY, wantY)
			}
			if !slices.Equal(sym[0], da) {
				t.Errorf("da = %v, want %v", sym[0], da)
			}
			if !slices.Equal(sym[1], dw) {
				t.Errorf("dw = %v, want %v", sym[1], dw)
			}
		})
	}
}

// TestMulAccumulation tells the three accumulations apart on dot products
// worked out by hand (float32 graph, operands not rounded).
func TestMulAccumulation(t *testing.T) {
	tests := []struct {
		name, out string
		a, w      []float32
		want      map[string]float64
	}{
		// 4096 + 2^-14 - 4096: float32 and posit(16,1) lose 2^-14 against
		// 4096 (their ulps there are 2^-11 and 2^2); the quire keeps it.
		{"cancellation", "posit(16,1)", []float32{4096, 0x1p-7, -4096}, []float32{1, 0x1p-7, 1},
			map[string]float64{"fp32": 0, "quire": 0x1p-14, "per-op": 0}},
		// 1 + 1/32 + 1/32 in posit(8,1) (ulp 1/16 in [1,2)): summed first,
		// 1.0625 is representable; per op, 1 + 1/32 is a tie that goes to
		// the even code, 1, twice.
		{"per-op ties", "posit(8,1)", []float32{1, 1.0 / 32, 1.0 / 32}, []float32{1, 1, 1},
			map[string]float64{"fp32": 1.0625, "quire": 1.0625, "per-op": 1}},
	}
	for _, tt := range tests {
		for _, acc := range []string{"fp32", "quire", "per-op"} {
			t.Run(tt.name+"/"+acc, func(t *testing.T) {
				p := mkPolicy(t, "out="+tt.out, "accum="+acc)
				g := gorgonia.NewGraph()
				a := input(g, "a", []int{1, len(tt.a)}, tt.a)
				w := input(g, "w", []int{len(tt.w), 1}, tt.w)
				y, err := Mul(p, "fc", a, w)
				if err != nil {
					t.Fatal(err)
				}
				runGraph(t, g)
				if got := valueFloats(y.Value()); got[0] != tt.want[acc] {
					t.Errorf("got %v, want %v", got[0], tt.want[acc])
				}
			})
		}
	}
}

// TestAccumGrad checks the gradients of the accumulating matrix multiply,
// including its transposed forms (Conv2d uses A·Bᵀ), with finite
// differences on grid values where every sum is exact.
func TestAccumGrad(t *testing.T) {
	opts := &gradcheck.Options{Step: 1.0 / 8, RelTol: 1e-12, AbsTol: 1e-12}
	for _, acc := range []string{"quire", "per-op"} {
		// The forward result format holds the grid sums exactly; the
		// gradients (of arbitrary upstream values) stay in float64.
		s := accumSpec{accum: quant.AccumQuire, out: quant.MustParse("posit(32,2)")}
		if acc == "per-op" {
			s.accum = quant.AccumPerOp
		}
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			t.Run(fmt.Sprintf("%s/tA=%v,tB=%v", acc, tr[0], tr[1]), func(t *testing.T) {
				err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
					sa, sb := []int{3, 4}, []int{4, 2}
					if tr[0] {
						sa = []int{4, 3}
					}
					if tr[1] {
						sb = []int{2, 4}
					}
					a := input(g, "a", sa, grid(12, 20, 1))
					b := input(g, "b", sb, grid(8, 21, 1))
					y, err := accumMatMul(s, a, b, tr[0], tr[1])
					if err != nil {
						return nil, nil, err
					}
					l, err := weightedSum(y, 22)
					return l, []*gorgonia.Node{a, b}, err
				}, opts)
				if err != nil {
					t.Error(err)
				}
			})
		}
		t.Run(acc+"/Conv2d", func(t *testing.T) {
			p := mkPolicy(t, append(slices.Clone(straightThrough), "accum="+acc)...)
			err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
				x := input(g, "x", []int{1, 2, 4, 4}, grid(32, 4, 1))
				w := input(g, "w", []int{2, 2, 3, 3}, grid(36, 5, 1))
				y, err := Conv2d(p, "conv", x, w, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}, []int{1, 1})
				if err != nil {
					return nil, nil, err
				}
				l, err := weightedSum(y, 6)
				return l, []*gorgonia.Node{x, w}, err
			}, opts)
			if err != nil {
				t.Error(err)
			}
		})
	}
}

func TestDotAccumulationError(t *testing.T) {
	for _, acc := range []string{"quire", "per-op"} {
		p := mkPolicy(t, "all=posit(8,1)", "fc:accum="+acc)
		g := gorgonia.NewGraph()
		a, w := input(g, "a", []int{2, 2, 2}, make([]float32, 8)), input(g, "w", []int{2, 2, 2}, make([]float32, 8))
		if _, err := BatchedMatMul(p, "fc", a, w, Act, Weight, false, false); err == nil || !strings.Contains(err.Error(), acc+" accumulation") {
			t.Errorf("%s: BatchedMatMul: got %v, want an accumulation error", acc, err)
		}
		if _, err := BatchedMatMul(p, "other", a, w, Act, Weight, false, false); err != nil {
			t.Errorf("%s: fp32 layer: %v", acc, err)
		}
		v := input(g, "v", []int{2}, []float32{1, 2})
		m := input(g, "m", []int{2, 2}, []float32{1, 2, 3, 4})
		if _, err := Mul(p, "fc", m, v); err == nil || !strings.Contains(err.Error(), "want two matrices") {
			t.Errorf("%s: matrix-vector: got %v, want an error", acc, err)
		}
	}
}

// TestTrainStep trains a small float32 MLP with Adam under posit8+ (and
// with stochastic rounding), checking that the loss falls and that a
// second run with the same seed gives the same bits.
func TestTrainStep(t *testing.T) {
	for _, setting := range []string{"rounding=nearest", "rounding=stochastic"} {
		t.Run(setting, func(t *testing.T) {
			a := trainMLP(t, setting, 42)
			b := trainMLP(t, setting, 42)
			if a[len(a)-1] >= a[0]/2 {
				t.Errorf("loss %v -> %v: did not halve", a[0], a[len(a)-1])
			}
			if !slices.Equal(a, b) {
				t.Errorf("same seed, different losses:\n%v\n%v", a, b)
			}
			if c := trainMLP(t, setting, 43); setting == "rounding=stochastic" && slices.Equal(a, c) {
				t.Error("stochastic rounding: seeds 42 and 43 gave the same losses")
			}
		})
	}
}

// trainMLP fits y = sin(x·v) with a 2-layer MLP for 40 steps of the
// trainer's Adam (learning rate 0.02, β1 0.9) and returns the losses.
func trainMLP(t *testing.T, setting string, seed uint64) []float32 {
	t.Helper()
	p, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(setting); err != nil {
		t.Fatal(err)
	}
	const batch, in, hid, out = 16, 4, 8, 2
	v32 := func(n int, f func(i int) float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(f(i))
		}
		return v
	}
	xs := v32(batch*in, func(i int) float64 { return math.Sin(float64(i) * 0.7) })
	ys := v32(batch*out, func(i int) float64 { return 0.5 * math.Sin(float64(i)*1.3) })
	g := gorgonia.NewGraph()
	x := input(g, "x", []int{batch, in}, xs)
	target := input(g, "y", []int{batch, out}, ys)
	w1 := input(g, "l1/w", []int{in, hid}, v32(in*hid, func(i int) float64 { return 0.4 * math.Cos(float64(i)*2.1) }))
	w2 := input(g, "l2/w", []int{hid, out}, v32(hid*out, func(i int) float64 { return 0.4 * math.Sin(float64(i)*1.9+1) }))
	h, err := Mul(p, "l1", x, w1, WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	if h, err = gorgonia.Tanh(h); err != nil {
		t.Fatal(err)
	}
	yhat, err := Mul(p, "l2", h, w2, WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	d, err := gorgonia.Sub(yhat, target)
	if err != nil {
		t.Fatal(err)
	}
	sq, err := gorgonia.Square(d)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Mean(sq)
	if err != nil {
		t.Fatal(err)
	}
	params := gorgonia.Nodes{w1, w2}
	grads, err := gorgonia.Grad(loss, params...)
	if err != nil {
		t.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	pd := [][]float32{w1.Value().Data().([]float32), w2.Value().Data().([]float32)}
	adam := gan.NewAdam([]int{len(pd[0]), len(pd[1])})
	adam.LR, adam.Beta1 = 0.02, 0.9
	var losses []float32
	for range 40 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		losses = append(losses, loss.Value().Data().(float32))
		adam.Step(pd, [][]float32{grads[0].Value().Data().([]float32), grads[1].Value().Data().([]float32)}, 1)
		m.Reset()
	}
	return losses
}

// buildNet builds conv → leaky → reshape → fc on a float64 graph, with
// plain Gorgonia ops (p nil) or with the wrappers.
func buildNet(p *policy.Policy, g *gorgonia.ExprGraph) (loss *gorgonia.Node, params []*gorgonia.Node, err error) {
	x := input(g, "x", []int{2, 2, 4, 4}, grid(64, 11, 1))
	wc := input(g, "G/conv1/w", []int{3, 2, 3, 3}, grid(54, 12, 0.5))
	wf := input(g, "G/fc/w", []int{48, 5}, grid(240, 13, 0.25))
	conv := gorgonia.Conv2d
	mul := gorgonia.Mul
	if p != nil {
		conv = func(x, w *gorgonia.Node, k tensor.Shape, pad, stride, dil []int) (*gorgonia.Node, error) {
			return Conv2d(p, "G/conv1", x, w, k, pad, stride, dil)
		}
		mul = func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return Mul(p, "G/fc", a, b) }
	}
	h, err := conv(x, wc, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1})
	if err != nil {
		return nil, nil, err
	}
	if h, err = gorgonia.LeakyRelu(h, 0.25); err != nil {
		return nil, nil, err
	}
	if h, err = gorgonia.Reshape(h, tensor.Shape{2, 48}); err != nil {
		return nil, nil, err
	}
	y, err := mul(h, wf)
	if err != nil {
		return nil, nil, err
	}
	loss, err = weightedSum(y, 14)
	return loss, []*gorgonia.Node{x, wc, wf}, err
}

// TestRewrite checks that rewriting a plain graph gives the graph the
// wrappers build: the same quantizers, forward values and gradients.
func TestRewrite(t *testing.T) {
	for _, acc := range []string{"fp32", "quire", "per-op"} {
		t.Run(acc, func(t *testing.T) {
			p := mkPolicy(t, "all=posit(8,1)", "weight=posit(8,1,scale=3)", "err=posit(8,2)",
				"G/conv1:act=posit(6,1)", "G/fc:wgrad=posit(16,1)", "accum="+acc)
			testRewrite(t, p)
		})
	}
}

func testRewrite(t *testing.T, p *policy.Policy) {
	gw := gorgonia.NewGraph()
	lw, pw, err := buildNet(p, gw)
	if err != nil {
		t.Fatal(err)
	}
	g := gorgonia.NewGraph()
	l, params, err := buildNet(nil, g)
	if err != nil {
		t.Fatal(err)
	}
	// x is an input, not a learnable: only the two weights are.
	g2, m, err := Rewrite(g, p, params[1:])
	if err != nil {
		t.Fatal(err)
	}
	lr := m[l]
	pr := []*gorgonia.Node{m[params[0]], m[params[1]], m[params[2]]}
	if a, b := quantizers(gw), quantizers(g2); !slices.Equal(a, b) {
		t.Errorf("quantizers differ:\nwrappers %v\nrewrite  %v", a, b)
	}
	if want := []string{"Q(posit(6,1)|∇posit(8,2))", "Q(posit(8,1)|∇posit(8,2))", "Q(posit(8,1)|∇posit(8,2))",
		"Q(posit(8,1)|∇posit(8,2))", "Q(posit(8,1,scale=3)|∇posit(16,1))", "Q(posit(8,1,scale=3)|∇posit(8,1))"}; !slices.Equal(quantizers(g2), want) {
		t.Errorf("quantizers %v, want %v", quantizers(g2), want)
	}
	accOps := 0
	for _, n := range g2.AllNodes() {
		if op, ok := n.Op().(*accumMatMulOp); ok && op.accum == p.Default.Accum {
			accOps++
		}
	}
	if want := map[quant.Accumulation]int{quant.AccumFP32: 0, quant.AccumQuire: 2, quant.AccumPerOp: 2}[p.Default.Accum]; accOps != want {
		t.Errorf("%d accumulating matrix multiplies, want %d", accOps, want)
	}
	if pr[1].Value() != params[1].Value() {
		t.Error("rewritten weight does not share the original's value")
	}
	symW, err := gradcheck.Symbolic(lw, pw)
	if err != nil {
		t.Fatal(err)
	}
	symR, err := gradcheck.Symbolic(lr, pr)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := valueFloats(lw.Value()), valueFloats(lr.Value()); !slices.Equal(a, b) {
		t.Errorf("loss: wrappers %v, rewrite %v", a, b)
	}
	for i := range symW {
		if !slices.Equal(symW[i], symR[i]) {
			t.Errorf("gradient of %s differs:\nwrappers %v\nrewrite  %v", pw[i].Name(), symW[i], symR[i])
		}
	}
	// And the gradients are not those of the plain graph.
	sym, err := gradcheck.Symbolic(l, params)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(sym[2], symR[2]) {
		t.Error("rewritten graph has the plain graph's gradients")
	}
}

func TestRewriteErrors(t *testing.T) {
	build := func() (*gorgonia.ExprGraph, *gorgonia.Node, []*gorgonia.Node) {
		g := gorgonia.NewGraph()
		l, params, err := buildNet(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		return g, l, params
	}
	bg := gorgonia.NewGraph()
	a, b := input(bg, "a", []int{2, 2, 2}, make([]float32, 8)), input(bg, "bmm/w", []int{2, 2, 2}, make([]float32, 8))
	if _, err := gorgonia.BatchedMatMul(a, b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Rewrite(bg, mkPolicy(t, "all=posit(8,1)", "bmm:accum=quire"), []*gorgonia.Node{b}); err == nil || !strings.Contains(err.Error(), "bmm: quire accumulation is available for matrix multiplies only") {
		t.Errorf("quire batched: %v", err)
	}
	g, l, params := build()
	if _, err := gorgonia.Grad(l, params...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Rewrite(g, mkPolicy(t, "all=posit(8,1)"), params[1:]); err == nil || !strings.Contains(err.Error(), "before calling gorgonia.Grad") {
		t.Errorf("after Grad: %v", err)
	}
	other := gorgonia.NewGraph()
	_, otherParams, _ := buildNet(nil, other)
	g, _, _ = build()
	if _, _, err := Rewrite(g, nil, otherParams); err == nil || !strings.Contains(err.Error(), "not in the graph") {
		t.Errorf("foreign learnable: %v", err)
	}
}

func TestRewriteLayerNames(t *testing.T) {
	g := gorgonia.NewGraph()
	a := input(g, "a", []int{2, 2}, []float64{1, 2, 3, 4})
	b := input(g, "b", []int{2, 2}, []float64{1, 2, 3, 4})
	w := input(g, "enc/w", []int{2, 2}, []float64{1, 2, 3, 4})
	w0 := input(g, "w0", []int{2, 2}, []float64{1, 2, 3, 4})
	for _, ab := range [][2]*gorgonia.Node{{a, w}, {a, b}, {b, w0}, {b, a}} { // enc, dot1, w0, scores
		d, err := gorgonia.Mul(ab[0], ab[1])
		if err != nil {
			t.Fatal(err)
		}
		if ab[1] == a {
			gorgonia.WithName("scores")(d) // no weight, named
		}
	}
	var seen []string
	_, _, err := Rewrite(g, nil, []*gorgonia.Node{w, w0}, WithLayerName(func(dot, weight *gorgonia.Node) string {
		return "x"
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range g.AllNodes() {
		if isDot(n) {
			var weight *gorgonia.Node
			for _, kid := range children(g, n) {
				if kid == w || kid == w0 {
					weight = kid
				}
			}
			seen = append(seen, layerName(n, weight, len(seen)))
		}
	}
	if want := []string{"enc", "dot1", "w0", "scores"}; !slices.Equal(seen, want) {
		t.Errorf("layer names %v, want %v", seen, want)
	}
	// The names select the policy's overrides.
	p := mkPolicy(t, "enc:weight=posit(8,1)", "dot1:act=posit(8,2)", "w0:weight=posit(6,1)", "scores:out=posit(16,1)")
	g2, _, err := Rewrite(g, p, []*gorgonia.Node{w, w0})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Q(posit(16,1))", "Q(posit(6,1))", "Q(posit(8,1))", "Q(posit(8,2))", "Q(posit(8,2))"}
	if got := quantizers(g2); !slices.Equal(got, want) {
		t.Errorf("quantizers %v, want %v", got, want)
	}
}
