package quant

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// A Promotion is the promotion of several operands with the reason each
// candidate format was or was not chosen, as "positgan format promote"
// prints it.
type Promotion struct {
	Operands []Format
	// Result is the promotion of the operands; nil if they have none.
	Result Format
	// Candidates are the formats the promotion chose among (the
	// Candidates of the first two operands, then further operands), each
	// with why it is or is not Result.
	Candidates []Candidate
}

// A Candidate is a format a promotion considered and why it is or is not
// the result: "result: holds every operand", "lacks 0.5 of fp8-e4m3", ...
// The reasons are worded as "positgan format promote" prints them, whose
// --prefer is Promoter.Prefer.
type Candidate struct {
	Format Format
	Why    string
}

// Explain promotes the operands in turn, ops[0] with ops[1], the result
// with ops[2] and so on, and says for every candidate why it is or is not
// the result: the operand value of smallest magnitude it lacks, or how it
// compares with the result. When the operands have no promotion (a
// *NeedsFloat64 or *AmbiguousError), the Promotion still lists the
// candidates, with Result nil, beside the error; so it does when a
// candidate cannot be compared, up to that candidate. Explain panics with
// fewer than two operands.
func (p Promoter) Explain(ops ...Format) (Promotion, error) {
	if len(ops) < 2 {
		panic("quant: Explain needs at least two operands")
	}
	pr := Promotion{Operands: ops}
	r, err := ops[0], error(nil)
	for _, o := range ops[1:] {
		if r, err = p.Promote(r, o); err != nil {
			r = nil
			break
		}
	}
	pr.Result = r
	cands := p.Candidates(ops[0], ops[1])
	for _, o := range ops[2:] {
		if !slices.Contains(cands, o) {
			cands = append(cands, o)
		}
	}
	for _, c := range cands {
		why, werr := promoteWhy(c, r, ops)
		if werr != nil {
			return pr, werr
		}
		pr.Candidates = append(pr.Candidates, Candidate{c, why})
	}
	return pr, err
}

// promoteWhy says why the candidate c is or is not the result r (nil:
// the operands have none).
func promoteWhy(c, r Format, ops []Format) (string, error) {
	if r != nil && c == r {
		return "result: holds every operand", nil
	}
	var best float64
	var bestOp Format
	for _, o := range ops {
		v, lacks, err := Lacks(c, o)
		if err != nil {
			return "", err
		}
		if lacks && (bestOp == nil || lackOrder(v) < lackOrder(best)) {
			best, bestOp = v, o
		}
	}
	if bestOp != nil {
		return fmt.Sprintf("lacks %s of %v", lackedValue(best), bestOp), nil
	}
	if r == nil {
		return "holds every operand", nil
	}
	if in, err := Contains(c, r); err != nil {
		return "", err
	} else if in {
		if back, _ := Contains(r, c); back {
			return fmt.Sprintf("holds every operand; the same values as %v", r), nil
		}
		return fmt.Sprintf("holds every operand, and %v, which is smaller", r), nil
	}
	return fmt.Sprintf("holds every operand; neither it nor %v holds the other (settled by --prefer)", r), nil
}

// lackOrder ranks a lacked value as Lacks does: zeros, then finite
// values by magnitude, then infinities, then NaN.
func lackOrder(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	if math.IsInf(v, 0) {
		return math.MaxFloat64
	}
	return math.Abs(v)
}

// lackedValue spells a lacked value: the shortest decimal, NaN, +Inf or
// -Inf.
func lackedValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// PromoteBlocks promotes block formats in turn, bs[0] with bs[1], the
// result with bs[2] and so on (PromoteBlock). It panics with no operand.
func (p Promoter) PromoteBlocks(bs ...BlockFormat) (BlockFormat, error) {
	r := bs[0]
	for _, b := range bs[1:] {
		var err error
		if r, err = p.PromoteBlock(r, b); err != nil {
			return BlockFormat{}, err
		}
	}
	return r, nil
}
