package qgraph

import (
	"fmt"
	"strings"

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
// What it recognises, in Gorgonia v0.9.18:
//
//   - Dot products: nodes whose op is Gorgonia's linear-algebra op for
//     matrix multiply (gorgonia.Mul of two matrices), matrix-vector and
//     vector-vector products (gorgonia.Mul), and gorgonia.BatchedMatMul,
//     found by the op's Go type name (gorgonia.linAlgBinOp, which Gorgonia
//     does not export). Outer products (gorgonia.OuterProd) are left
//     alone. gorgonia.Conv2d is not one op but im2col → Reshape → matrix
//     multiply → Reshape → Transpose; its matrix multiply is the dot
//     product, and the activation's quantizer goes before the im2col, as
//     in Conv2d (so the error is rounded after the windows are summed),
//     unless another dot product with different formats shares that
//     im2col node, in which case it goes after.
//   - Weights: an operand is a weight if, through Reshape and Transpose
//     nodes only, it is one of the learnables. The other operands are
//     activations.
//   - Layer names: with a weight "G/conv1/w", the layer is "G/conv1" (the
//     weight's name without its last /-separated element), or the weight's
//     name if it has no '/'; with no weight, the dot-product node's own name
//     if it was given one, else "dot<k>" for the k-th dot product (from 0)
//     in node order. WithLayerName replaces this rule.
//
// Accumulation: fp32 keeps Gorgonia's op. Quire and per-op replace a
// matrix multiply (including Conv2d's) by the accumulating one that Mul
// and Conv2d use; for other dot products they are an error.
func Rewrite(g *gorgonia.ExprGraph, p *quant.Policy, learnables []*gorgonia.Node, opts ...Option) (*gorgonia.ExprGraph, map[*gorgonia.Node]*gorgonia.Node, error) {
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
		fwd, bwd    quant.Format
		lf          quant.LayerFormats
	}
	type edge struct {
		to *gorgonia.Node // the consumer
		i  int            // the child index
	}
	type accumDot struct {
		spec   accumSpec
		tA, tB bool
	}
	edges := map[edge]spec{}
	outs := map[*gorgonia.Node]spec{}
	accums := map[*gorgonia.Node]accumDot{}
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
		for i, kid := range kids {
			if w := traceLearnable(g, kid, learn); w != nil {
				roles[i] = Weight
				if weight == nil {
					weight = w
				}
			}
		}
		layer := layerName(n, weight, k)
		if c.layerName != nil {
			layer = c.layerName(n, weight)
		}
		k++
		lf := p.For(layer)
		if lf.Accum != quant.AccumFP32 {
			tA, tB, ok := matMulTrans(n)
			if !ok {
				return nil, nil, fmt.Errorf("qgraph: Rewrite: layer %s: %v accumulation is available for matrix multiplies only, not %v", layer, lf.Accum, n.Op())
			}
			as := accumDot{spec: newAccumSpec(lf, roles[0], roles[1]), tA: tA, tB: tB}
			for i, kid := range kids {
				if _, ok := traceIm2col(g, kid); ok && roles[i] == Act { // as in Conv2d
					if i == 0 {
						as.spec.ga = nil
					} else {
						as.spec.gb = nil
					}
				}
			}
			accums[n] = as
		}
		which := [2]string{"a", "b"}
		for i, kid := range kids {
			s := spec{layer: layer, lf: lf}
			e := edge{n, i}
			if roles[i] == Weight {
				s.role, s.fwd, s.bwd = which[i]+".weight", lf.Weight, lf.WGrad
			} else {
				s.role, s.fwd, s.bwd = which[i]+".act", lf.Act, lf.Err
				if im, ok := traceIm2col(g, kid); ok {
					ie := edge{im, 0}
					if prev, taken := edges[ie]; !taken || prev.fwd == s.fwd && prev.bwd == s.bwd && prev.lf.Rounding == lf.Rounding {
						e = ie
					}
				}
			}
			if _, taken := edges[e]; !taken && (s.fwd != nil || s.bwd != nil) {
				edges[e] = s
			}
		}
		if lf.Out != nil || lf.Err != nil {
			outs[n] = spec{layer: layer, role: "out", fwd: lf.Out, bwd: lf.Err, lf: lf}
		}
	}

	// Copy in node order (children are always created before parents).
	g2 := gorgonia.NewGraph()
	m := make(map[*gorgonia.Node]*gorgonia.Node, len(nodes))
	quantize := func(x *gorgonia.Node, s spec) (*gorgonia.Node, error) {
		return quantizeRole(&c, s.lf, s.layer, s.role, x, s.fwd, s.bwd)
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
			if as, ok := accums[n]; ok {
				nn, err = accumMatMul(as.spec, args[0], args[1], as.tA, as.tB)
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

func opType(n *gorgonia.Node) string {
	if n.Op() == nil {
		return ""
	}
	return fmt.Sprintf("%T", n.Op())
}

// isDot reports whether n is a dot product: Gorgonia's linear-algebra op,
// except the outer product (printed with ⊗).
func isDot(n *gorgonia.Node) bool {
	return opType(n) == "gorgonia.linAlgBinOp" && !strings.Contains(n.Op().String(), "⊗")
}

// matMulTrans returns the transpose flags of a matrix-multiply node (not
// matrix-vector, vector, or batched), read from the op's String, "A × B"
// with ᵀ after a transposed operand.
func matMulTrans(n *gorgonia.Node) (tA, tB, ok bool) {
	switch n.Op().String() {
	case "A × B":
		return false, false, true
	case "Aᵀ × B":
		return true, false, true
	case "A × Bᵀ":
		return false, true, true
	case "Aᵀ × Bᵀ":
		return true, true, true
	}
	return false, false, false
}

func isShapeOnly(n *gorgonia.Node) bool {
	t := opType(n)
	return t == "gorgonia.reshapeOp" || t == "gorgonia.transposeOp" || t == "*gorgonia.reshapeOp" || t == "*gorgonia.transposeOp"
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
	return n, opType(n) == "gorgonia.im2colOp"
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

// defaultName is the name Gorgonia shows for a node that was given none.
func defaultName(g *gorgonia.ExprGraph, n *gorgonia.Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", n.Op())
	for i, kid := range children(g, n) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%%%x", kid.ID())
	}
	b.WriteString(")")
	return b.String()
}
