package qgraph_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/nn/qgraph"
	"github.com/positgan/positgan/policy"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The network of these tests, for a batch of 4 images 2×6×6:
//
//	D/conv1  Conv2d 2→4, 3×3, stride 1, pad 1, bias   (windows overlap)
//	         LeakyRelu 0.2
//	D/conv2  Conv2d 4→3, 3×3, stride 2, pad 1, bias   (3×3 output)
//	         LeakyRelu 0.2, flatten to 27
//	D/fc1    Linear 27→16, bias   (plain: x·Transpose(W), W shared with nn)
//	         Tanh
//	D/fc2    Linear 16→5, bias    (plain: x·V with V = Wᵀ, a copy)
//	loss     Σ c⊙y for a fixed c
//
// Plain Gorgonia builds the layers with Conv2d, Mul and BroadcastAdd and is
// then rewritten; the fused network builds them with nn and uses the
// same Gorgonia ops in between.
const (
	batch, inC, size = 4, 2, 6
	c1, c2, hid, out = 4, 3, 16, 5
)

// params are the network's parameter values, shared by both builds.
type params struct {
	x, c                       *tensor.Dense
	w1, b1, w2, b2, w3, b3, w4 *tensor.Dense // w4 is fc2's (out, in); b4 below
	b4                         *tensor.Dense
}

// det returns n deterministic values of magnitude up to about scale,
// irregular enough that float32 sums of them round in most orders.
func det(n int, seed, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		x := math.Sin(seed*12.9898+float64(i)*78.233) * 43758.5453
		v[i] = float32(scale * (2*(x-math.Floor(x)) - 1))
	}
	return v
}

func newParams() *params {
	t := func(shape []int, seed, scale float64) *tensor.Dense {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(det(tensor.Shape(shape).TotalSize(), seed, scale)))
	}
	return &params{
		x:  t([]int{batch, inC, size, size}, 1, 1),
		c:  t([]int{batch, out}, 2, 1),
		w1: t([]int{c1, inC, 3, 3}, 3, 0.3),
		b1: t([]int{c1}, 4, 0.1),
		w2: t([]int{c2, c1, 3, 3}, 5, 0.2),
		b2: t([]int{c2}, 6, 0.1),
		w3: t([]int{hid, c2 * 9}, 7, 0.2),
		b3: t([]int{hid}, 8, 0.1),
		w4: t([]int{out, hid}, 9, 0.25),
		b4: t([]int{out}, 10, 0.1),
	}
}

// net is one build: the output, the loss, and the nodes whose gradients
// are compared.
type net struct {
	g        *gorgonia.ExprGraph
	y, loss  *gorgonia.Node
	x        *gorgonia.Node
	w        []*gorgonia.Node // w1, b1, w2, b2, w3, b3, w4 (or V), b4
	vIsTrans bool             // w[6] holds fc2's weight transposed (in, out)
}

func node(g *gorgonia.ExprGraph, t *tensor.Dense, name string) *gorgonia.Node {
	return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name))
}

func must(n *gorgonia.Node, err error) *gorgonia.Node {
	if err != nil {
		panic(err)
	}
	return n
}

// loss returns Σ c⊙y.
func lossOf(g *gorgonia.ExprGraph, y *gorgonia.Node, c *tensor.Dense) *gorgonia.Node {
	return must(gorgonia.Sum(must(gorgonia.HadamardProd(y, node(g, c, "c")))))
}

// plainNet builds the network with plain Gorgonia ops.
func plainNet(p *params) *net {
	g := gorgonia.NewGraph()
	n := &net{g: g, vIsTrans: true}
	n.x = node(g, p.x, "x")
	// Conv biases as (1, C, 1, 1) views of the same values.
	b4d := func(b *tensor.Dense, name string) *gorgonia.Node {
		return node(g, tensor.New(tensor.WithShape(1, b.Shape()[0], 1, 1), tensor.WithBacking(b.Data())), name)
	}
	w1, b1 := node(g, p.w1, "D/conv1/w"), b4d(p.b1, "D/conv1/b")
	w2, b2 := node(g, p.w2, "D/conv2/w"), b4d(p.b2, "D/conv2/b")
	w3, b3 := node(g, p.w3, "D/fc1/w"), node(g, p.b3, "D/fc1/b")
	vt := p.w4.Clone().(*tensor.Dense)
	if err := vt.T(); err != nil {
		panic(err)
	}
	vt = vt.Materialize().(*tensor.Dense) // (hid, out)
	w4, b4 := node(g, vt, "D/fc2/w"), node(g, p.b4, "D/fc2/b")
	n.w = []*gorgonia.Node{w1, b1, w2, b2, w3, b3, w4, b4}

	k := tensor.Shape{3, 3}
	h := must(gorgonia.Conv2d(n.x, w1, k, []int{1, 1}, []int{1, 1}, []int{1, 1}))
	h = must(gorgonia.BroadcastAdd(h, b1, nil, []byte{0, 2, 3}))
	h = must(gorgonia.LeakyRelu(h, 0.2))
	h = must(gorgonia.Conv2d(h, w2, k, []int{1, 1}, []int{2, 2}, []int{1, 1}))
	h = must(gorgonia.BroadcastAdd(h, b2, nil, []byte{0, 2, 3}))
	h = must(gorgonia.LeakyRelu(h, 0.2))
	h = must(gorgonia.Reshape(h, tensor.Shape{batch, c2 * 9}))
	h = must(gorgonia.Mul(h, must(gorgonia.Transpose(w3))))
	h = must(gorgonia.BroadcastAdd(h, b3, nil, []byte{0}))
	h = must(gorgonia.Tanh(h))
	h = must(gorgonia.Mul(h, w4))
	n.y = must(gorgonia.BroadcastAdd(h, b4, nil, []byte{0}))
	n.loss = lossOf(g, n.y, p.c)
	return n
}

// fusedNet builds the network from nn layers with formats
// pol.For(layer), holding the parameter values of p.
func fusedNet(t *testing.T, p *params, pol *policy.Policy) *net {
	g := gorgonia.NewGraph()
	n := &net{g: g}
	n.x = node(g, p.x, "x")
	set := func(dst *gorgonia.Node, src *tensor.Dense) {
		copy(dst.Value().Data().([]float32), src.Data().([]float32))
	}
	conv1, err := nn.NewConv2d(g, "D/conv1", inC, c1, 3, 1, 1, pol.For("D/conv1"))
	if err != nil {
		t.Fatal(err)
	}
	conv2, err := nn.NewConv2d(g, "D/conv2", c1, c2, 3, 2, 1, pol.For("D/conv2"))
	if err != nil {
		t.Fatal(err)
	}
	fc1, err := nn.NewLinear(g, "D/fc1", c2*9, hid, pol.For("D/fc1"))
	if err != nil {
		t.Fatal(err)
	}
	fc2, err := nn.NewLinear(g, "D/fc2", hid, out, pol.For("D/fc2"))
	if err != nil {
		t.Fatal(err)
	}
	set(conv1.W, p.w1)
	set(conv1.B, p.b1)
	set(conv2.W, p.w2)
	set(conv2.B, p.b2)
	set(fc1.W, p.w3)
	set(fc1.B, p.b3)
	set(fc2.W, p.w4)
	set(fc2.B, p.b4)
	n.w = []*gorgonia.Node{conv1.W, conv1.B, conv2.W, conv2.B, fc1.W, fc1.B, fc2.W, fc2.B}

	h := must(conv1.Fwd(n.x))
	h = must(gorgonia.LeakyRelu(h, 0.2))
	h = must(conv2.Fwd(h))
	h = must(gorgonia.LeakyRelu(h, 0.2))
	h = must(fc1.Fwd(h))
	h = must(gorgonia.Tanh(h))
	n.y = must(fc2.Fwd(h))
	n.loss = lossOf(g, n.y, p.c)
	return n
}

// run computes the output and the gradients of the loss with respect to
// the input and every parameter, as float32 slices (fc2's weight as
// (out, in)), in the order x, w1, b1, ..., b4.
func (n *net) run(t *testing.T) (y []float32, grads [][]float32) {
	t.Helper()
	wrt := append([]*gorgonia.Node{n.x}, n.w...)
	gs, err := gorgonia.Grad(n.loss, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(n.g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	y = slices.Clone(n.y.Value().Data().([]float32))
	for i, gn := range gs {
		d := slices.Clone(gn.Value().Data().([]float32))
		if i == 7 && n.vIsTrans { // (hid, out) → (out, hid)
			tr := make([]float32, len(d))
			for r := 0; r < hid; r++ {
				for c := 0; c < out; c++ {
					tr[c*hid+r] = d[r*out+c]
				}
			}
			d = tr
		}
		grads = append(grads, d)
	}
	return y, grads
}

var gradNames = []string{"x", "D/conv1/w", "D/conv1/b", "D/conv2/w", "D/conv2/b", "D/fc1/w", "D/fc1/b", "D/fc2/w", "D/fc2/b"}

// rewritten builds the plain network and rewrites it under pol.
func rewritten(t *testing.T, p *params, pol *policy.Policy) *net {
	pn := plainNet(p)
	g2, m, err := qgraph.Rewrite(pn.g, pol, pn.w)
	if err != nil {
		t.Fatal(err)
	}
	r := &net{g: g2, y: m[pn.y], loss: m[pn.loss], x: m[pn.x], vIsTrans: true}
	for _, w := range pn.w {
		r.w = append(r.w, m[w])
	}
	return r
}

// compareRewriteFused runs the fused network and its rewritten graph
// under pol on the same parameters and reports the first difference of the
// output and of each gradient.
func compareRewriteFused(t *testing.T, pol *policy.Policy) {
	t.Helper()
	p := newParams()
	fy, fg := fusedNet(t, p, pol).run(t)
	ry, rg := rewritten(t, p, pol).run(t)
	if d, ok := firstDiff(fy, ry); ok {
		t.Errorf("output: %s", d)
	}
	for i := range fg {
		if d, ok := firstDiff(fg[i], rg[i]); ok {
			t.Errorf("gradient of %s: %s", gradNames[i], d)
		}
	}
}

// firstDiff describes the first element where a and b differ in bits.
func firstDiff(a, b []float32) (string, bool) {
	if len(a) != len(b) {
		return fmt.Sprintf("lengths %d and %d", len(a), len(b)), true
	}
	n, first := 0, -1
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n == 0 {
		return "", false
	}
	return fmt.Sprintf("%d of %d elements differ; first [%d]: fused %g, rewrite %g", n, len(a), first, a[first], b[first]), true
}

// TestRewriteMatchesFused checks that a plain-Gorgonia network rewritten
// under a policy gives the same forward values and gradients, bit for
// bit, as the same network built from the fused layers of nn, for
// fp32 accumulation.
func TestRewriteMatchesFused(t *testing.T) {
	for _, name := range []string{"fp32", "fp16", "posit8", "posit8+", "posit6-deploy", "fp8-ibm", "mxfp8", "mxfp6", "mxfp4-deploy", "posit8-block"} {
		t.Run(name, func(t *testing.T) {
			pol, err := policy.Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			compareRewriteFused(t, pol)
		})
	}
}

// TestRewriteMatchesFusedFormats checks the same with every role in a
// format of its own, so that a quantizer put on the wrong tensor shows.
func TestRewriteMatchesFusedFormats(t *testing.T) {
	pol := &policy.Policy{}
	for _, s := range []string{"weight=posit(8,1,scale=3)", "act=posit(8,0)", "out=fp8-e5m2", "err=posit(8,2)",
		"wgrad=posit(16,1)", "D/fc2:act=posit(6,1)", "D/conv1:out=fp16"} {
		if err := pol.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	compareRewriteFused(t, pol)
}

// TestRewriteMatchesFusedAccum checks the same for quire and per-op
// accumulation, also bit for bit: quire sums are exact whatever the order,
// per-op sums go in the order of the inner index in both, and both round a
// convolution's patch gradient to Err before summing the windows.
func TestRewriteMatchesFusedAccum(t *testing.T) {
	for _, name := range []string{"posit8+-quire", "posit8+-per-op", "fp8-ibm-quire", "fp8-ibm-per-op", "fp16-quire", "fp16-per-op", "fp32-quire", "fp32-per-op"} {
		t.Run(name, func(t *testing.T) {
			pol, err := policy.Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			compareRewriteFused(t, pol)
		})
	}
}

// TestRewriteMatchesFusedBlocks checks block formats with blocks shorter
// than the reduction dimensions, so that every dot product spans several
// blocks and a short last one, forward and in both backward products.
func TestRewriteMatchesFusedBlocks(t *testing.T) {
	for _, settings := range [][]string{
		{"dot=mxfp8-e4m3(block=4)", "err=mxfp8-e5m2(block=5)"},
		{"dot=posit(8,1,block=3)", "err=posit(8,1,block=8)", "D/fc2:act=mxint8(block=2)"},
	} {
		t.Run(strings.Join(settings, ","), func(t *testing.T) {
			pol := &policy.Policy{}
			for _, s := range settings {
				if err := pol.Apply(s); err != nil {
					t.Fatal(err)
				}
			}
			compareRewriteFused(t, pol)
		})
	}
}

// TestBlockErrors checks that block formats qgraph cannot apply as the
// fused layers do are refused with an error naming the layer.
func TestBlockErrors(t *testing.T) {
	for _, tc := range []struct {
		policy string
		wrap   bool // the Mul wrapper rather than Rewrite
	}{
		{"mxfp8", true},
		{"mxfp8-quire", false},
		{"mxfp8-per-op", false},
	} {
		pol, err := policy.Parse(tc.policy)
		if err != nil {
			t.Fatal(err)
		}
		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
		w := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(3, 4), gorgonia.WithName("w"), gorgonia.WithInit(gorgonia.Ones()))
		if tc.wrap {
			_, err = qgraph.Mul(pol, "fc", x, w)
		} else {
			if _, err = gorgonia.Mul(x, w); err != nil {
				t.Fatal(err)
			}
			_, _, err = qgraph.Rewrite(g, pol, []*gorgonia.Node{w})
		}
		if err == nil || !strings.Contains(err.Error(), "block formats") {
			t.Errorf("%s (wrapper %v): error %v, want one about block formats", tc.policy, tc.wrap, err)
		}
	}
}
