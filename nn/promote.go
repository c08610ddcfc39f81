package nn

import (
	"errors"
	"fmt"
	"strings"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/quant"
)

// Where two tensors of different formats meet and the policy names no
// format for the result, the result takes their promoted format,
// quant.Promote (docs/formats.md, "Type promotion"). A tensor's format is
// read off the graph (formatOf), not recorded anywhere.

// promoter chooses among the operands and the built-in candidates only:
// with the registered formats a program happens to have built so far, a
// resumed run could round differently from the run it resumes.
var promoter = quant.Promoter{BuiltinOnly: true}

// formatOf returns the element format every value of n is known to lie
// in: the forward format of a quantizer node, or the promotion of the
// formats of a concatenation's inputs (whose values are all in it, so
// the concatenation needs no rounding). ok is false when nothing is known.
func formatOf(n *gorgonia.Node) (f quant.Format, ok bool) {
	switch op := n.Op().(type) {
	case *QuantizeOp:
		return op.fwd.Format, op.fwd.Format != nil && op.fwd.Block.IsZero()
	case *diffOp:
		if !strings.HasPrefix(op.Func.Name, "Concat(") {
			return nil, false
		}
		// The inputs, in any order (promotion is commutative), once each.
		it := n.Graph().From(n.ID())
		for it.Next() {
			g, ok := formatOf(it.Node().(*gorgonia.Node))
			if !ok {
				return nil, false
			}
			if f == nil {
				f = g
			} else if f, ok = promoteKnown(f, g); !ok {
				return nil, false
			}
		}
		return f, f != nil
	}
	return nil, false
}

// promoteKnown is quant.Promote with any error as "not known".
func promoteKnown(a, b quant.Format) (quant.Format, bool) {
	p, err := promoter.Promote(a, b)
	return p, err == nil
}

// promotion rounds a residual sum whose Other format the policy leaves
// unnamed.
type promotion struct {
	name string // the Other role's name, "<scope>/add"
	s    *Stream
}

// round returns sum = x + y rounded, both ways, to the promotion of x's
// and y's formats when both are known and differ. When they are equal,
// or one is unknown, the sum is left as it was before promotion existed:
// unrounded, which keeps the results of every policy that names its
// formats bit for bit. When no format holds both (quant.NeedsFloat64) the
// sum stays float32, the widest tensor the graph has; several least upper
// bounds are an error that asks the policy to name one.
func (pr *promotion) round(sum, x, y *gorgonia.Node) (*gorgonia.Node, error) {
	fx, okX := formatOf(x)
	fy, okY := formatOf(y)
	if !okX || !okY || fx == fy {
		return sum, nil
	}
	f, err := promoter.Promote(fx, fy)
	var f64 *quant.NeedsFloat64
	switch {
	case errors.As(err, &f64):
		return sum, nil
	case err != nil:
		return nil, fmt.Errorf("nn: %s: %w; name its Other format in the policy", pr.name, err)
	}
	return roundNode(sum, pr.name, Quantizer{Format: f}, pr.s)
}
