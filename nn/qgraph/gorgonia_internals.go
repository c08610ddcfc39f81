package qgraph

// Everything Rewrite knows about Gorgonia's unexported internals is in this
// file, behind the small functions below. They were written against
// gorgonia.org/gorgonia v0.9.18 and are needed because Gorgonia exports
// neither the types of the ops its graph functions build (gorgonia.Mul,
// gorgonia.Conv2d, gorgonia.BroadcastAdd, ...) nor their parameters, so a
// rewriter can only tell a matrix multiply from an outer product, or read a
// convolution's kernel and stride, from the ops' Go type names and String
// methods. gorgonia_internals_test.go builds every op named here with
// Gorgonia's public functions and fails with "gorgonia changed: ... update
// gorgonia_internals.go" when one of them is no longer recognised or gives
// other parameters.

import (
	"fmt"
	"strings"

	"gorgonia.org/gorgonia"
)

// gorgoniaVersion is the version these functions were written against.
const gorgoniaVersion = "v0.9.18"

// The Go type names (as %T prints them) of the Gorgonia ops Rewrite
// recognises. Value and pointer receivers are both accepted.
const (
	linAlgType    = "gorgonia.linAlgBinOp" // Mul, BatchedMatMul, OuterProd, Conv2d's matrix multiply
	reshapeType   = "gorgonia.reshapeOp"
	transposeType = "gorgonia.transposeOp"
	im2colType    = "gorgonia.im2colOp"
	elemBinType   = "gorgonia.elemBinOp" // Add, Sub, HadamardProd, ...
	repeatType    = "gorgonia.repeatOp"  // the broadcast of BroadcastAdd
	sizeType      = "gorgonia.sizeOp"    // SizeOf, a broadcast's size argument
)

// opType returns the Go type name of n's op without a leading '*', or ""
// for a leaf.
func opType(n *gorgonia.Node) string {
	if n.Op() == nil {
		return ""
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n.Op()), "*")
}

// isDot reports whether n is a dot product: Gorgonia's linear-algebra op
// (matrix multiply, matrix-vector, vector-vector and batched products),
// except the outer product, which it prints with ⊗ ("a ⊗ b").
func isDot(n *gorgonia.Node) bool {
	return opType(n) == linAlgType && !strings.Contains(n.Op().String(), "⊗")
}

// matMulTrans returns the transpose flags of a matrix-multiply node (not
// matrix-vector, vector, or batched), read from the op's String: "A × B"
// with ᵀ after a transposed operand. The batched product prints "A ××× B",
// matrix-vector "A × b", the vector dot "a ⋅ b".
func matMulTrans(n *gorgonia.Node) (tA, tB, ok bool) {
	if opType(n) != linAlgType {
		return false, false, false
	}
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

// isShapeOnly reports whether n's op only moves data: Reshape or
// Transpose.
func isShapeOnly(n *gorgonia.Node) bool {
	t := opType(n)
	return t == reshapeType || t == transposeType
}

// isIm2col reports whether n is gorgonia.Im2Col's op (gorgonia.Conv2d
// starts with one).
func isIm2col(n *gorgonia.Node) bool { return opType(n) == im2colType }

// im2colParams are the parameters of an im2col op: kernel size, padding,
// stride and dilation, each (rows, columns).
type im2colParams struct {
	kh, kw, ph, pw, sh, sw, dh, dw int
}

// im2colFormat is how im2colOp.String prints its parameters.
const im2colFormat = "im2col<(%d,%d), (%d, %d), (%d,%d) (%d, %d)>"

// readIm2col returns the parameters of an im2col node, parsed from its
// op's String (the fields are unexported). It reports false if n is not
// one or its String no longer has the expected form.
func readIm2col(n *gorgonia.Node) (im2colParams, bool) {
	var p im2colParams
	if !isIm2col(n) {
		return p, false
	}
	s := n.Op().String()
	k, err := fmt.Sscanf(s, im2colFormat, &p.kh, &p.kw, &p.ph, &p.pw, &p.sh, &p.sw, &p.dh, &p.dw)
	if err != nil || k != 8 || fmt.Sprintf(im2colFormat, p.kh, p.kw, p.ph, p.pw, p.sh, p.sw, p.dh, p.dw) != s {
		return p, false
	}
	return p, true
}

// isAdd reports whether n is gorgonia.Add (also the last op of
// gorgonia.BroadcastAdd): an element-wise binary op printed "+ false".
func isAdd(n *gorgonia.Node) bool {
	return opType(n) == elemBinType && n.Op().String() == "+ false"
}

// isRepeat reports whether n is one of the repeat ops gorgonia.Broadcast
// (and so BroadcastAdd) builds: its first child is the repeated tensor, the
// others are SizeOf nodes.
func isRepeat(n *gorgonia.Node) bool { return opType(n) == repeatType }

// isSizeOf reports whether n is gorgonia.SizeOf's op, which reads only its
// child's shape.
func isSizeOf(n *gorgonia.Node) bool { return opType(n) == sizeType }

// defaultName is the name Gorgonia shows for a node that was given none:
// the op's String and the children's IDs in hex, "A × B(%0, %3)".
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
