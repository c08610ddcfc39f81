package nn

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/quant"
)

// Where two tensors of different formats meet and the policy names no
// format for the result, the result takes their promoted format,
// quant.Promote (docs/formats.md, "Type promotion"). A tensor's format is
// read off the graph (formatOf) or, for the outputs of quantized layers,
// whose kernels round them, off the pass that applied them (Pass.know).

// promoter chooses among the operands and the built-in candidates only:
// with the registered formats a program happens to have built so far, a
// resumed run could round differently from the run it resumes. A policy
// adds its own formats and prefer list through LayerFormats.Promoter.
var promoter = quant.Promoter{BuiltinOnly: true}

// FormatOf returns the element format every value of n is known to lie
// in from the graph alone: the forward format of a quantizer node (nn's,
// or nn/qgraph's), or the promotion of the formats of a concatenation's
// inputs (whose values are all in it, so the concatenation needs no
// rounding). ok is false when nothing is known. (Modules also know the
// output formats of the quantized layers a pass applied.)
func FormatOf(n *gorgonia.Node) (f quant.Format, ok bool) { return formatOf(nil, n) }

// know records that the values of n are in q's element format: n is the
// output of a quantized layer whose kernel rounds it to its Out role,
// which no node of the graph shows.
func (p *Pass) know(n *gorgonia.Node, q Quantizer) {
	if p == nil || q.Format == nil || !q.Block.IsZero() {
		return
	}
	if p.known == nil {
		p.known = map[*gorgonia.Node]Quantizer{}
	}
	p.known[n] = q
}

// formatOf is FormatOf, which also knows the formats p recorded (know).
func formatOf(p *Pass, n *gorgonia.Node) (f quant.Format, ok bool) {
	if p != nil {
		if q, ok := p.known[n]; ok {
			return q.Format, true
		}
	}
	switch op := n.Op().(type) {
	case *QuantizeOp:
		return op.fwd.Format, op.fwd.Format != nil && op.fwd.Block.IsZero()
	case *diffOp:
		if !strings.HasPrefix(op.Func.Name, "Concat(") {
			return nil, false
		}
		// The inputs, in any order (promotion is commutative), once each.
		labels := false
		it := n.Graph().From(n.ID())
		for it.Next() {
			in := it.Node().(*gorgonia.Node)
			if p != nil && in == p.Cond {
				labels = true // one-hot: see below
				continue
			}
			g, ok := formatOf(p, in)
			if !ok {
				return nil, false
			}
			if f == nil {
				f = g
			} else if f, ok = promoteKnown(f, g); !ok {
				return nil, false
			}
		}
		// A conditional layer's labels (Pass.Cond, see Conditional) are
		// one-hot, 0 and 1 alone: they join any format holding both.
		if labels && f != nil && !holdsOneHot(f) {
			return nil, false
		}
		return f, f != nil
	}
	return nil, false
}

// holdsOneHot reports whether +0 and 1, the values of one-hot labels, are
// values of f.
func holdsOneHot(f quant.Format) bool {
	z := f.Round(0)
	return z == 0 && !math.Signbit(float64(z)) && f.Round(1) == 1
}

// promoteKnown is quant.Promote with any error as "not known".
func promoteKnown(a, b quant.Format) (quant.Format, bool) {
	p, err := promoter.Promote(a, b)
	return p, err == nil
}

// promotion rounds a residual sum whose Other format the policy leaves
// unnamed, and records the format it chose.
type promotion struct {
	name string // the Other role's name, "<scope>/add"
	s    *Stream
	p    *quant.Promoter // the policy's (LayerFormats.Promoter), or nil

	mu sync.Mutex
	f  quant.Format // the format the sum was last rounded to, or nil
}

// promotedLabel labels the rounding of a promoted sum, so that
// PromotedNodes finds it (an Other role's rounding is labelled name).
func promotedLabel(name string) string { return name + " (promoted)" }

// round returns sum = x + y rounded, both ways, to the promotion of x's
// and y's formats when both are known (in the graph or to the pass p)
// and differ. When they are equal, or one is unknown, the sum is left as
// it was before promotion existed:
// unrounded, which keeps the results of every policy that names its
// formats bit for bit. When no format holds both (quant.NeedsFloat64) the
// sum stays float32, the widest tensor the graph has; several least upper
// bounds are an error that asks the policy to name one or prefer one.
func (pr *promotion) round(p *Pass, sum, x, y *gorgonia.Node) (*gorgonia.Node, error) {
	f, err := promoteIn(p, pr.p, x, y)
	if err != nil {
		return nil, fmt.Errorf("nn: %s: %w; name its Other format in the policy", pr.name, err)
	}
	if f == nil {
		return sum, nil
	}
	pr.mu.Lock()
	pr.f = f
	pr.mu.Unlock()
	return roundNode(sum, promotedLabel(pr.name), Quantizer{Format: f}, pr.s)
}

// Promotion returns the promotion of the formats of the nodes ns by p
// (nil: among the operands and the built-in formats) when every one is
// known (FormatOf) and they are not all equal, and nil when nothing is to
// be rounded: a format unknown, all equal, or no format but float64
// holding them all (quant.NeedsFloat64), where a float32 graph keeps
// float32. Several least upper bounds are a *quant.AmbiguousError.
func Promotion(p *quant.Promoter, ns ...*gorgonia.Node) (quant.Format, error) {
	return promoteIn(nil, p, ns...)
}

// promoteIn is Promotion with the formats pass knows.
func promoteIn(pass *Pass, p *quant.Promoter, ns ...*gorgonia.Node) (quant.Format, error) {
	if p == nil {
		p = &promoter
	}
	var fs []quant.Format
	for _, n := range ns {
		f, ok := formatOf(pass, n)
		if !ok {
			return nil, nil
		}
		fs = append(fs, f)
	}
	if len(fs) < 2 {
		return nil, nil
	}
	f, differ := fs[0], false
	for _, g := range fs[1:] {
		if g == f {
			continue
		}
		differ = true
		var err error
		if f, err = p.Promote(f, g); err != nil {
			var f64 *quant.NeedsFloat64
			if errors.As(err, &f64) {
				return nil, nil
			}
			return nil, err
		}
	}
	if !differ {
		return nil, nil
	}
	return f, nil
}

// Promotions returns the formats the residual sums of m whose Other
// format the policy leaves unnamed were rounded to by promotion, by the
// name of their Other role ("G_AB/res1/add"): what training with m's
// graphs built so far gave them. It is empty before m is applied.
func Promotions(m Module) map[string]quant.Format {
	out := map[string]quant.Format{}
	Walk(m, func(c Module) {
		if r, ok := c.(residual); ok && r.promote != nil {
			r.promote.mu.Lock()
			if r.promote.f != nil {
				out[r.promote.name] = r.promote.f
			}
			r.promote.mu.Unlock()
		}
	})
	return out
}

// PromotedNodes returns the nodes of g that round a residual sum to its
// promoted format (the forward ones, whose values are the sums), by the
// name of the sum's Other role.
func PromotedNodes(g *gorgonia.ExprGraph) map[string]*gorgonia.Node {
	out := map[string]*gorgonia.Node{}
	for _, n := range g.AllNodes() {
		op, ok := n.Op().(*QuantizeOp)
		if !ok || op.dir != 0 {
			continue
		}
		if name, ok := strings.CutSuffix(op.label, " (promoted)"); ok {
			out[name] = n
		}
	}
	return out
}

// promoteLoss rounds loss, a loss of the inputs ins, and the gradient
// coming back to it to the promotion of the inputs' formats when each is
// known and they differ, as a residual sum (promotion.round): the loss
// is computed where its inputs meet. A loss whose inputs the policy
// rounds to one format (gan's "loss" Other role) is left alone, so that a
// format the policy names wins.
func promoteLoss(name string, loss *gorgonia.Node, ins ...*gorgonia.Node) (*gorgonia.Node, error) {
	f, err := Promotion(nil, ins...)
	if err != nil {
		return nil, fmt.Errorf("nn: %s: its inputs' formats: %w", name, err)
	}
	if f == nil {
		return loss, nil
	}
	return roundNode(loss, promotedLabel(name), Quantizer{Format: f}, nil)
}

// PromotableSums returns the names of the Other roles of m's residual
// sums whose format the policy leaves unnamed: those promotion rounds
// when their inputs' formats differ (see Promotions for what it did).
func PromotableSums(m Module) []string {
	var names []string
	Walk(m, func(c Module) {
		if r, ok := c.(residual); ok && r.promote != nil {
			names = append(names, r.promote.name)
		}
	})
	return names
}
