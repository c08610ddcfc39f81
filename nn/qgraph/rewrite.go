package qgraph

import (
	"fmt"
	"strings"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
)

// Rewrite returns a copy of the forward graph g with the quantization p
// asks for inserted around every dot product, and the map from each node
// of g to its copy (use it to find the new loss, inputs and parameters).
//
// Copies share values: each leaf of the new graph is bound to the same
// tensor as the old one (when it has one), so a solver updating either
// updates both. Ops are shared too (re-applied to the new children), which
// for stateful ops such as BatchNorm means shared running statistics.
// Call Rewrite before gorgonia.Grad: a graph that already holds gradient
// nodes is an error.
//
// What it recognises, in Gorgonia v0.9.18 (gorgonia_internals.go holds
// every use of Gorgonia's unexported names; its tests fail if they change):
//
//   - Dot products: nodes whose op is Gorgonia's linear-algebra op for
//     matrix multiply (gorgonia.Mul of two matrices), matrix-vector and
//     vector-vector products (gorgonia.Mul), and gorgonia.BatchedMatMul.
//     Outer products (gorgonia.OuterProd) are left alone. gorgonia.Conv2d
//     is not one op but im2col → Reshape → matrix multiply → Reshape →
//     Transpose; its matrix multiply is the dot product, and the
//     activation's quantizer goes before the im2col, as in Conv2d (so the
//     error is rounded after the windows are summed), unless another dot
//     product with different formats shares that im2col node, in which
//     case it goes after.
//   - Weights: an operand is a weight if, through Reshape and Transpose
//     nodes only, it is one of the learnables. The other operands are
//     activations.
//   - Biases: if the only consumer of a weight's dot product (through
//     Reshape and Transpose) is an Add of a learnable holding one value per
//     channel (axis 1), as gorgonia.BroadcastAdd(y, b, nil, []byte{0}) and,
//     for a convolution with b of shape (1, C, 1, 1), BroadcastAdd(y, b,
//     nil, []byte{0, 2, 3}) build, the output quantizer goes after the Add
//     and the bias gradient is rounded to WGrad; the bias itself is not
//     rounded.
//   - Layer names: with a weight "G/conv1/w", the layer is "G/conv1" (the
//     weight's name without its last /-separated element), or the weight's
//     name if it has no '/'; with no weight, the dot-product node's own name
//     if it was given one, else "dot<k>" for the k-th dot product (from 0)
//     in node order. WithLayerName replaces this rule.
//
// Same bits as nn: a rewritten dense or convolutional layer
// computes what nn.Linear or nn.Conv2d with the same formats computes, bit
// for bit, forward and backward (rewrite_fused_test.go checks it for the
// policy presets). To that end, with fp32 accumulation, a matrix multiply
// with one weight operand is replaced by an op computed by the kernel of
// nn.Linear (nn.LinearKernel), or of nn.Conv2d (nn.Conv2dKernel) if the
// activation comes from an im2col; im2col nodes (dilation 1) are replaced
// by one that sums the windows of the gradient in nn.Conv2d's order; the
// bias Add by one that sums the bias gradient with nn.SumBias.
// Other dot products keep Gorgonia's op.
//
// Accumulation: quire and per-op replace a matrix multiply (including
// Conv2d's) by the accumulating one that Mul and Conv2d use; for other dot
// products they are an error.
func Rewrite(g *gorgonia.ExprGraph, p nn.Policy, learnables []*gorgonia.Node, opts ...Option) (*gorgonia.ExprGraph, map[*gorgonia.Node]*gorgonia.Node, error) {
	c := newConfig(opts)
	learn := make(map[*gorgonia.Node]bool, len(learnables))
	for _, n := range learnables {
		if n.Graph() != g {
			return nil, nil, fmt.Errorf("qgraph: Rewrite: learnable %s is not in the graph", n.Name())
		}
		learn[n] = true
	}
	nodes := g.AllNodes()
	for _, n := range nodes {
		if len(n.DerivOf()) > 0 {
			return nil, nil, fmt.Errorf("qgraph: Rewrite: node %s is a gradient; rewrite the graph before calling gorgonia.Grad", n.Name())
		}
	}

	// Plan: which edges get which quantizer, which dot products get an
	// output quantizer.
	type spec struct {
		layer, role string
		fwd, bwd    nn.Quantizer // element-wise: blocks are the layer kernels'
	}
	type edge struct {
		to *gorgonia.Node // the consumer
		i  int            // the child index
	}
	type accumDot struct {
		spec   accumSpec
		tA, tB bool
	}
	type bias struct {
		h    int            // the index of the layer output among the add's children
		leaf *gorgonia.Node // the bias
		spec spec
	}
	edges := map[edge]spec{}
	outs := map[*gorgonia.Node]spec{}
	accums := map[*gorgonia.Node]accumDot{}
	layered := map[*gorgonia.Node]layerProduct{}
	biases := map[*gorgonia.Node]bias{}
	k := 0
	for _, n := range nodes {
		if !isDot(n) {
			continue
		}
		kids := children(g, n)
		if len(kids) != 2 {
			return nil, nil, fmt.Errorf("qgraph: Rewrite: dot product %s has %d inputs, want 2", n.Name(), len(kids))
		}
		var weight *gorgonia.Node
		var roles [2]Operand
		weightIdx := -1
		for i, kid := range kids {
			if w := traceLearnable(g, kid, learn); w != nil {
				roles[i] = Weight
				if weight == nil {
					weight, weightIdx = w, i
				} else {
					weightIdx = -1 // two weights: not a layer
				}
			}
		}
		layer := layerName(n, weight, k)
		if c.layerName != nil {
			layer = c.layerName(n, weight)
		}
		k++
		lf := nn.FormatsOf(p, layer)
		if err := checkBlocks(lf, layer); err != nil {
			return nil, nil, fmt.Errorf("qgraph: Rewrite: %w", err)
		}
		if lf.Accum != quant.AccumFP32 {
			tA, tB, ok := matMulTrans(n)
			if !ok {
				return nil, nil, fmt.Errorf("qgraph: Rewrite: layer %s: %v accumulation is available for matrix multiplies only, not %v", layer, lf.Accum, n.Op())
			}
			// A convolution's patch gradient is rounded to Err (or the
			// accumulation format) before im2col's backward pass sums the
			// windows, as in Conv2d and nn.Conv2d.
			as := accumDot{spec: newAccumSpec(lf, roles[0], roles[1]), tA: tA, tB: tB}
			accums[n] = as
		} else if tA, tB, ok := matMulTrans(n); ok && weightIdx >= 0 {
			// fp32: sum in the fused layers' order.
			_, conv := traceIm2col(g, kids[1-weightIdx])
			layered[n] = layerProduct{conv: conv, weight: weightIdx, tA: tA, tB: tB, blk: blockRoles(lf)}
		} else if hasBlocks(lf) {
			return nil, nil, fmt.Errorf("qgraph: Rewrite: layer %s: block formats (%v) need a matrix multiply or convolution with one weight operand, not %v", layer, lf.Act.Block, n.Op())
		}
		which := [2]string{"a", "b"}
		for i, kid := range kids {
			s := spec{layer: layer}
			e := edge{n, i}
			if roles[i] == Weight {
				s.role, s.fwd, s.bwd = which[i]+".weight", elem(lf.Weight), elem(lf.WGrad)
			} else {
				s.role, s.fwd, s.bwd = which[i]+".act", elem(lf.Act), elem(lf.Err)
				if im, ok := traceIm2col(g, kid); ok {
					ie := edge{im, 0}
					if prev, taken := edges[ie]; !taken || prev.fwd == s.fwd && prev.bwd == s.bwd {
						e = ie
					}
				}
			}
			if _, taken := edges[e]; !taken && (!s.fwd.IsZero() || !s.bwd.IsZero()) {
				edges[e] = s
			}
		}
		out := n
		if weight != nil {
			if add, h, b, ok := traceBias(g, n, learn); ok {
				// The output is rounded after the bias is added, as in
				// the fused layers; the bias gradient to WGrad.
				out = add
				biases[add] = bias{h: h, leaf: b, spec: spec{layer: layer, role: "bias", bwd: elem(lf.WGrad)}}
			}
		}
		if lf.Out.Format != nil || lf.Err.Format != nil {
			outs[out] = spec{layer: layer, role: "out", fwd: elem(lf.Out), bwd: elem(lf.Err)}
		}
	}

	// Copy in node order (children are always created before parents).
	g2 := gorgonia.NewGraph()
	m := make(map[*gorgonia.Node]*gorgonia.Node, len(nodes))
	quantize := func(x *gorgonia.Node, s spec) (*gorgonia.Node, error) {
		return quantizeRole(&c, s.layer, s.role, x, s.fwd, s.bwd)
	}
	for _, n := range nodes {
		var nn *gorgonia.Node
		var err error
		switch {
		case n.Op() == nil || n.Op().Arity() == 0: // leaves, constants, random nodes
			o := []gorgonia.NodeConsOpt{gorgonia.In(g2), gorgonia.WithType(n.Type()), gorgonia.WithShape(n.Shape()...), gorgonia.WithName(n.Name())}
			if n.Op() != nil {
				o = append(o, gorgonia.WithOp(n.Op()))
			} else if v := n.Value(); v != nil {
				o = append(o, gorgonia.WithValue(v))
			}
			nn = gorgonia.NewUniqueNode(o...)
		default:
			kids := children(g, n)
			args := make([]*gorgonia.Node, len(kids))
			for i, kid := range kids {
				a, ok := m[kid]
				if !ok {
					return nil, nil, fmt.Errorf("qgraph: Rewrite: node %s comes before its input %s", n.Name(), kid.Name())
				}
				if s, ok := edges[edge{n, i}]; ok {
					if a, err = quantize(a, s); err != nil {
						return nil, nil, err
					}
				}
				args[i] = a
			}
			if b, ok := biases[n]; ok {
				var bq *gorgonia.Node
				if bq, err = quantize(m[b.leaf], b.spec); err != nil {
					return nil, nil, err
				}
				nn, err = biasAdd(args[b.h], bq)
			} else if as, ok := accums[n]; ok {
				nn, err = accumMatMul(as.spec, args[0], args[1], as.tA, as.tB)
			} else if lp, ok := layered[n]; ok {
				nn, err = layerMatMul(lp, args[0], args[1])
			} else if p, ok := readIm2col(n); ok && p.dh == 1 && p.dw == 1 {
				nn, err = im2col(args[0], p)
			} else {
				nn, err = gorgonia.ApplyOp(n.Op(), args...)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("qgraph: Rewrite: copying %s: %w", n.Name(), err)
			}
			if name := n.Name(); name != defaultName(g, n) {
				gorgonia.WithName(name)(nn)
			}
			if s, ok := outs[n]; ok {
				if nn, err = quantize(nn, s); err != nil {
					return nil, nil, err
				}
			}
		}
		m[n] = nn
	}
	return g2, m, nil
}

// WithLayerName sets how Rewrite names the layer of a dot product, given
// the dot-product node and its weight leaf (nil if it has none).
func WithLayerName(f func(dot, weight *gorgonia.Node) string) Option {
	return func(c *config) { c.layerName = f }
}

func children(g *gorgonia.ExprGraph, n *gorgonia.Node) []*gorgonia.Node {
	var kids []*gorgonia.Node
	it := g.From(n.ID())
	for it.Next() {
		kids = append(kids, it.Node().(*gorgonia.Node))
	}
	return kids
}

// traceLearnable follows shape-only ops down from n and returns the
// learnable leaf it reaches, or nil.
func traceLearnable(g *gorgonia.ExprGraph, n *gorgonia.Node, learn map[*gorgonia.Node]bool) *gorgonia.Node {
	for isShapeOnly(n) {
		n = children(g, n)[0]
	}
	if learn[n] {
		return n
	}
	return nil
}

// traceIm2col follows shape-only ops down from n and returns the im2col
// node it reaches.
func traceIm2col(g *gorgonia.ExprGraph, n *gorgonia.Node) (*gorgonia.Node, bool) {
	for isShapeOnly(n) {
		n = children(g, n)[0]
	}
	return n, isIm2col(n)
}

func layerName(dot, weight *gorgonia.Node, k int) string {
	if weight != nil {
		name := weight.Name()
		if i := strings.LastIndexByte(name, '/'); i > 0 {
			return name[:i]
		}
		return name
	}
	if name := dot.Name(); name != defaultName(dot.Graph(), dot) {
		return name
	}
	return fmt.Sprintf("dot%d", k)
}

// parents returns the nodes that take n as an input, except SizeOf nodes,
// which read only its shape.
func parents(g *gorgonia.ExprGraph, n *gorgonia.Node) []*gorgonia.Node {
	var ps []*gorgonia.Node
	it := g.To(n.ID())
	for it.Next() {
		if p := it.Node().(*gorgonia.Node); !isSizeOf(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// traceBias finds the bias added to the output of the dot product dot:
// the only consumer of dot, through shape-only ops each with one consumer,
// is an Add whose other input is, through broadcast repeats and shape-only
// ops, a learnable holding one value per channel (axis 1) of the sum, laid
// out along that axis (as gorgonia.BroadcastAdd(y, b, nil, []byte{0}) and
// BroadcastAdd(y, b, nil, []byte{0, 2, 3}) with b of shape (1, C, 1, 1)
// build it). It returns the Add, the index of the layer's side among its
// children, and the bias.
func traceBias(g *gorgonia.ExprGraph, dot *gorgonia.Node, learn map[*gorgonia.Node]bool) (add *gorgonia.Node, h int, b *gorgonia.Node, ok bool) {
	cur := dot
	for {
		ps := parents(g, cur)
		if len(ps) != 1 {
			return nil, 0, nil, false
		}
		if isShapeOnly(ps[0]) {
			cur = ps[0]
			continue
		}
		add = ps[0]
		break
	}
	kids := children(g, add)
	if !isAdd(add) || len(kids) != 2 || add.Dims() < 2 {
		return nil, 0, nil, false
	}
	h = 0
	if kids[1] == cur {
		h = 1
	}
	if kids[h] != cur || kids[1-h] == cur {
		return nil, 0, nil, false
	}
	c := add.Shape()[1]
	n := kids[1-h]
	for isRepeat(n) {
		n = children(g, n)[0]
	}
	// n is the bias before broadcasting: C values along axis 1.
	s := n.Shape()
	if s.Dims() != add.Dims() || s.TotalSize() != c || s[1] != c {
		return nil, 0, nil, false
	}
	for isShapeOnly(n) {
		n = children(g, n)[0]
	}
	if !learn[n] || n.Shape().TotalSize() != c {
		return nil, 0, nil, false
	}
	return add, h, n, true
}
