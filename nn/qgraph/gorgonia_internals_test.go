package qgraph

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// These tests build every Gorgonia op gorgonia_internals.go recognises with
// Gorgonia's public functions and check that it is still recognised, with
// the right parameters. A failure means Gorgonia's internals changed (a
// new version): Rewrite would silently stop quantizing or stop matching the
// fused layers.

func changed(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Errorf("gorgonia changed (these functions were written against "+gorgoniaVersion+"): "+format+"; update gorgonia_internals.go", args...)
}

func mat(g *gorgonia.ExprGraph, name string, r, c int) *gorgonia.Node {
	return gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(r, c), gorgonia.WithName(name), gorgonia.WithInit(gorgonia.Ones()))
}

func vec(g *gorgonia.ExprGraph, name string, n int) *gorgonia.Node {
	return gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(n), gorgonia.WithName(name), gorgonia.WithInit(gorgonia.Ones()))
}

// built returns a function that checks the error of a Gorgonia call.
func built(t *testing.T) func(*gorgonia.Node, error) *gorgonia.Node {
	return func(n *gorgonia.Node, err error) *gorgonia.Node {
		t.Helper()
		if err != nil {
			t.Fatalf("gorgonia changed: building a node: %v; update gorgonia_internals.go", err)
		}
		return n
	}
}

func TestGorgoniaDotProducts(t *testing.T) {
	mk := built(t)
	g := gorgonia.NewGraph()
	a, b, v, u := mat(g, "a", 2, 3), mat(g, "b", 3, 4), vec(g, "v", 3), vec(g, "u", 3)
	t3 := func(name string) *gorgonia.Node {
		return gorgonia.NewTensor(g, tensor.Float32, 3, gorgonia.WithShape(2, 2, 2), gorgonia.WithName(name), gorgonia.WithInit(gorgonia.Ones()))
	}
	mm := mk(gorgonia.Mul(a, b))
	tests := []struct {
		what   string
		n      *gorgonia.Node
		dot    bool
		matmul bool
	}{
		{"Mul(matrix, matrix)", mm, true, true},
		{"Mul(matrix, vector)", mk(gorgonia.Mul(a, v)), true, false},
		{"Mul(vector, matrix)", mk(gorgonia.Mul(vec(g, "w", 2), a)), true, false},
		{"Mul(vector, vector)", mk(gorgonia.Mul(v, u)), true, false},
		{"BatchedMatMul", mk(gorgonia.BatchedMatMul(t3("x"), t3("y"))), true, false},
		{"BatchedMatMul transposed", mk(gorgonia.BatchedMatMul(t3("x2"), t3("y2"), true, true)), true, false},
		{"OuterProd", mk(gorgonia.OuterProd(v, u)), false, false},
		{"Add", mk(gorgonia.Add(a, a)), false, false},
	}
	for _, tt := range tests {
		if got := isDot(tt.n); got != tt.dot {
			changed(t, "%s (op %T %q): isDot = %v, want %v", tt.what, tt.n.Op(), tt.n.Op(), got, tt.dot)
		}
		if _, _, ok := matMulTrans(tt.n); ok != tt.matmul {
			changed(t, "%s (op %T %q): matMulTrans ok = %v, want %v", tt.what, tt.n.Op(), tt.n.Op(), ok, tt.matmul)
		}
	}
	if tA, tB, _ := matMulTrans(mm); tA || tB {
		changed(t, "Mul(a, b) (op %q): transposes %v, %v, want none", mm.Op(), tA, tB)
	}

	// The gradients of a matrix multiply are the transposed forms.
	loss := mk(gorgonia.Sum(mm))
	if _, err := gorgonia.Grad(loss, a, b); err != nil {
		t.Fatal(err)
	}
	seen := map[[2]bool]bool{}
	for _, n := range g.AllNodes() {
		if tA, tB, ok := matMulTrans(n); ok {
			seen[[2]bool{tA, tB}] = true
		}
	}
	for _, want := range [][2]bool{{false, false}, {true, false}, {false, true}} {
		if !seen[want] {
			changed(t, "no matrix multiply with transposes %v among Mul and its gradients", want)
		}
	}
}

func TestGorgoniaConv2d(t *testing.T) {
	mk := built(t)
	for _, tt := range []struct {
		kernel                 tensor.Shape
		pad, stride, dilation  []int
		wantKH, wantKW, c, out int
	}{
		{tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 3, 3, 2, 3},
		{tensor.Shape{3, 2}, []int{1, 0}, []int{2, 1}, []int{1, 1}, 3, 2, 2, 4},
		{tensor.Shape{2, 2}, []int{0, 1}, []int{1, 2}, []int{2, 1}, 2, 2, 1, 2},
	} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(2, tt.c, 7, 6), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
		w := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(tt.out, tt.c, tt.wantKH, tt.wantKW), gorgonia.WithName("conv/w"), gorgonia.WithInit(gorgonia.Ones()))
		y := mk(gorgonia.Conv2d(x, w, tt.kernel, tt.pad, tt.stride, tt.dilation))
		learn := map[*gorgonia.Node]bool{w: true}
		var dots []*gorgonia.Node
		for _, n := range g.AllNodes() {
			if isDot(n) {
				dots = append(dots, n)
			}
		}
		if len(dots) != 1 {
			changed(t, "Conv2d%v: %d dot products, want 1 (the matrix multiply after im2col)", tt.kernel, len(dots))
			continue
		}
		dot := dots[0]
		kids := children(g, dot)
		tA, tB, ok := matMulTrans(dot)
		if !ok || tA || !tB || len(kids) != 2 {
			changed(t, "Conv2d%v: its dot product %q is not patches × filterᵀ", tt.kernel, dot.Op())
			continue
		}
		if traceLearnable(g, kids[1], learn) != w {
			changed(t, "Conv2d%v: the filter is not found through shape-only ops from %q", tt.kernel, kids[1].Op())
		}
		im, ok := traceIm2col(g, kids[0])
		if !ok {
			changed(t, "Conv2d%v: no im2col under the patches (found %T %q)", tt.kernel, im.Op(), im.Op())
			continue
		}
		p, ok := readIm2col(im)
		want := im2colParams{kh: tt.wantKH, kw: tt.wantKW, ph: tt.pad[0], pw: tt.pad[1], sh: tt.stride[0], sw: tt.stride[1], dh: tt.dilation[0], dw: tt.dilation[1]}
		if !ok || p != want {
			changed(t, "Conv2d%v: im2col %q read as %+v (ok %v), want %+v", tt.kernel, im.Op(), p, ok, want)
		}
		// The im2col replacement must give Gorgonia's shape (and, checked
		// by rewrite_fused_test.go, its values).
		if want.dh == 1 && want.dw == 1 {
			s, err := im2colShape(p, x.Shape())
			if err != nil || !s.Eq(im.Shape()) {
				changed(t, "Conv2d%v: im2col shape %v, qgraph's im2col gives %v (%v)", tt.kernel, im.Shape(), s, err)
			}
		}
		// The result: reshape and transpose of the dot product, each with
		// one consumer.
		for n := y; n != dot; {
			if !isShapeOnly(n) {
				changed(t, "Conv2d%v: %T %q between the dot product and the result", tt.kernel, n.Op(), n.Op())
				break
			}
			n = children(g, n)[0]
		}
	}
}

func TestGorgoniaBroadcastAdd(t *testing.T) {
	mk := built(t)
	g := gorgonia.NewGraph()
	x, w, b := mat(g, "x", 2, 3), mat(g, "fc/w", 3, 4), vec(g, "fc/b", 4)
	learn := map[*gorgonia.Node]bool{w: true, b: true}
	dot := mk(gorgonia.Mul(x, w))
	y := mk(gorgonia.BroadcastAdd(dot, b, nil, []byte{0}))
	add, h, bias, ok := traceBias(g, dot, learn)
	if !ok || add != y || h != 0 || bias != b {
		changed(t, "BroadcastAdd(x·w, b, nil, {0}): traceBias = %v, %d, %v, %v; want the add %q, 0, fc/b", add, h, bias, ok, y.Op())
	}
	if !isAdd(y) {
		changed(t, "BroadcastAdd's last op %T %q is not recognised as Add", y.Op(), y.Op())
	}
	var repeats, sizes int
	for _, n := range g.AllNodes() {
		if isRepeat(n) {
			repeats++
		}
		if isSizeOf(n) {
			sizes++
		}
	}
	if repeats != 1 || sizes != 1 {
		changed(t, "BroadcastAdd along one axis: %d repeat and %d SizeOf nodes recognised, want 1 and 1", repeats, sizes)
	}
	if sub := mk(gorgonia.Sub(y, y)); isAdd(sub) {
		changed(t, "Sub (%q) is recognised as Add", sub.Op())
	}

	// A convolution's bias, (1, C, 1, 1), broadcast over axes 0, 2, 3.
	xc := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(2, 2, 5, 5), gorgonia.WithName("xc"), gorgonia.WithInit(gorgonia.Ones()))
	wc := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(3, 2, 3, 3), gorgonia.WithName("conv/w"), gorgonia.WithInit(gorgonia.Ones()))
	bc := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(1, 3, 1, 1), gorgonia.WithName("conv/b"), gorgonia.WithInit(gorgonia.Ones()))
	learn[wc], learn[bc] = true, true
	yc := mk(gorgonia.BroadcastAdd(mk(gorgonia.Conv2d(xc, wc, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1})), bc, nil, []byte{0, 2, 3}))
	var cdot *gorgonia.Node
	for _, n := range g.AllNodes() {
		if _, tB, ok := matMulTrans(n); ok && tB && traceLearnable(g, children(g, n)[1], learn) == wc {
			cdot = n
		}
	}
	if cdot == nil {
		changed(t, "Conv2d's matrix multiply not found")
		return
	}
	if add, h, bias, ok := traceBias(g, cdot, learn); !ok || add != yc || h != 0 || bias != bc {
		changed(t, "BroadcastAdd(Conv2d(x, w), b, nil, {0, 2, 3}): traceBias = %v, %d, %v, %v; want the add, 0, conv/b", add, h, bias, ok)
	}
}

func TestGorgoniaShapeOps(t *testing.T) {
	mk := built(t)
	g := gorgonia.NewGraph()
	a := mat(g, "a", 2, 3)
	r := mk(gorgonia.Reshape(a, tensor.Shape{3, 2}))
	tr := mk(gorgonia.Transpose(a))
	for _, n := range []*gorgonia.Node{r, tr} {
		if !isShapeOnly(n) {
			changed(t, "%T %q is not recognised as a shape-only op", n.Op(), n.Op())
		}
	}
	for _, n := range []*gorgonia.Node{a, mk(gorgonia.Tanh(a))} {
		if isShapeOnly(n) {
			changed(t, "%T %q is recognised as a shape-only op", n.Op(), n.Op())
		}
	}
	// defaultName must be the name Gorgonia gives a node with none.
	m := mk(gorgonia.Mul(tr, a))
	for _, n := range []*gorgonia.Node{r, tr, m} {
		if got, want := defaultName(g, n), n.Name(); got != want {
			changed(t, "default node name %q, defaultName gives %q", want, got)
		}
	}
	gorgonia.WithName("named")(m)
	if defaultName(g, m) == m.Name() {
		changed(t, "a named node has its default name")
	}
}

// TestGorgoniaTypeInference checks that an op whose operands have
// different dimensions (a graphop typed tensor-of-a per operand, as the
// bias add's matrix and vector) gets the type of its output, not that of
// an operand.
func TestGorgoniaTypeInference(t *testing.T) {
	g := gorgonia.NewGraph()
	h, b := mat(g, "h", 2, 3), vec(g, "b", 3)
	n, err := biasAdd(h, b)
	if err != nil {
		changed(t, "an op of type Tensor-2 a → Tensor-1 a → Tensor-2 a applied to a matrix and a vector: %v", err)
	} else if n.Dims() != 2 {
		changed(t, "an op of type Tensor-2 a → Tensor-1 a → Tensor-2 a applied to a matrix and a vector has %d dimensions, want 2", n.Dims())
	}
}
