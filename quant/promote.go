package quant

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Type promotion: the format a result takes when two formats meet.
//
// Formats are ordered by exact containment of their value sets: A ≤ B when
// every value of A is a value of B, ±0, ±Inf and NaN included as each
// format has them (posit's NaR counts as NaN; -0 and +0 are distinct where
// a format has both). Promote returns the least upper bound of two formats
// among the known ones; see docs/formats.md, "Type promotion".

// promoteCandidates are the built-in formats Promote chooses among, besides
// the operands, the Promoter's Prefer list and the registered formats
// built so far, in the order that breaks ties between formats with equal
// value sets.
var promoteCandidates = []string{
	"fp4-e2m1", "fp6-e2m3", "fp6-e3m2",
	"fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd",
	"posit(8,0)", "posit(8,1)", "posit(8,2)",
	"fixed(8,6)",
	"posit(16,1)", "posit(16,2)",
	"fp16", "bf16",
	"posit(32,2)",
	"fp32",
}

// PromoteCandidates returns the names of the built-in formats Promote
// chooses among (see Promoter).
func PromoteCandidates() []string { return slices.Clone(promoteCandidates) }

// leqCache caches lacks by the two canonical names.
var leqCache sync.Map // [2]string → lackResult

type lackResult struct {
	v     float64
	lacks bool
}

// Lacks returns the value of a of smallest magnitude that b lacks and
// whether there is one; a ≤ b (Contains(b, a)) exactly when there is none.
// Zeros come first (+0 before -0), then finite values by magnitude (the
// positive one first), then -Inf, +Inf and NaN. Formats of at most 16
// bits are compared code by code; wider posits, floats and fixed-point
// formats by their parameters; other wider formats are an error.
func Lacks(b, a Format) (v float64, ok bool, err error) {
	key := [2]string{a.String(), b.String()}
	if r, hit := leqCache.Load(key); hit {
		r := r.(lackResult)
		return r.v, r.lacks, nil
	}
	sa, err := setOf(a)
	if err != nil {
		return 0, false, err
	}
	sb, err := setOf(b)
	if err != nil {
		return 0, false, err
	}
	v, ok = lacks(sa, sb)
	leqCache.Store(key, lackResult{v, ok})
	return v, ok, nil
}

// Contains reports whether every value of a is a value of b (a ≤ b).
func Contains(b, a Format) (bool, error) {
	_, l, err := Lacks(b, a)
	return !l, err
}

// NeedsFloat64 is the error of Promote when no known format holds both
// operands: posit(32,2) and fp32, for instance. Every format of this
// package is contained in float64, which is the promoted type of the
// reference arithmetic there.
type NeedsFloat64 struct{ A, B Format }

func (e *NeedsFloat64) Error() string {
	return fmt.Sprintf("quant: promote %v and %v: no format holds both (fp32 does not): promote to float64", e.A, e.B)
}

// AmbiguousError is the error of Promote when the known formats hold
// several minimal upper bounds, none contained in another, and the
// Promoter's Prefer list names none of them.
type AmbiguousError struct {
	A, B   Format
	Bounds []Format // the minimal upper bounds
}

func (e *AmbiguousError) Error() string {
	names := make([]string, len(e.Bounds))
	for i, f := range e.Bounds {
		names[i] = f.String()
	}
	return fmt.Sprintf("quant: promote %v and %v: several least upper bounds, none contained in another: %s (prefer one)",
		e.A, e.B, strings.Join(names, ", "))
}

// A Promoter promotes formats. Prefer adds formats to the candidates and
// settles a choice among several minimal upper bounds: the first of
// Prefer that is one of them wins. The zero Promoter is Promote.
type Promoter struct {
	Prefer []Format
	// Known adds formats to the candidates without settling choices: the
	// formats a policy names, say.
	Known []Format
	// BuiltinOnly leaves the registered formats out of the candidates, so
	// that the result does not depend on which of them a program has
	// built so far.
	BuiltinOnly bool
}

// Promote returns the least upper bound of a and b: the format, among the
// known ones, whose value set holds both a's and b's and is contained in
// every other such format's. The known formats are a and b, the built-in
// candidates (PromoteCandidates), the registered formats built so far
// (see FromCodec), Prefer and Known. Among formats with equal value sets, an
// operand wins, then the earlier in Prefer, then the earlier in
// PromoteCandidates, then the smaller name; so Promote(a, a) is a and
// Promote is commutative.
//
// When no known format holds both, the error is a *NeedsFloat64; when
// several minimal upper bounds are none contained in another and Prefer
// names none of them, an *AmbiguousError naming them.
func (p Promoter) Promote(a, b Format) (Format, error) {
	if a == b {
		if _, err := setOf(a); err != nil {
			return nil, err
		}
		return a, nil
	}
	cands := p.Candidates(a, b)
	var upper []Format
	for _, c := range cands {
		ca, err := Contains(c, a)
		if err != nil {
			return nil, err
		}
		cb, err := Contains(c, b)
		if err != nil {
			return nil, err
		}
		if ca && cb {
			upper = append(upper, c)
		}
	}
	if len(upper) == 0 {
		return nil, &NeedsFloat64{a, b}
	}
	// Keep the minimal upper bounds; of each class of equal value sets,
	// the first in candidate order (operands lead it).
	var minimal []Format
	for _, m := range upper {
		keep := true
		for _, u := range upper {
			if u == m {
				continue
			}
			um, _ := Contains(m, u)
			mu, _ := Contains(u, m)
			if um && !mu {
				keep = false // u is strictly smaller
				break
			}
		}
		if !keep {
			continue
		}
		dup := false
		for _, k := range minimal {
			if ok, _ := Contains(k, m); ok {
				dup = true // equal value sets: k came first
				break
			}
		}
		if !dup {
			minimal = append(minimal, m)
		}
	}
	if len(minimal) == 1 {
		return minimal[0], nil
	}
	for _, f := range p.Prefer {
		for _, m := range minimal {
			fm, _ := Contains(m, f)
			mf, _ := Contains(f, m)
			if fm && mf {
				return m, nil // m is f or, being first of f's class, an operand
			}
		}
	}
	return nil, &AmbiguousError{A: a, B: b, Bounds: minimal}
}

// Candidates returns the formats p.Promote(a, b) chooses among, in the
// order that breaks ties between equal value sets: the operands (ordered
// by name, so that the order does not depend on theirs), Prefer, Known, the
// built-in candidates, then registered formats by name (unless
// BuiltinOnly). Formats wider
// than 16 bits whose value set is not known are left out.
func (p Promoter) Candidates(a, b Format) []Format {
	ops := []Format{a, b}
	if b.String() < a.String() {
		ops = []Format{b, a}
	}
	var out []Format
	seen := map[string]bool{}
	add := func(f Format) {
		if f == nil || seen[f.String()] {
			return
		}
		if _, err := setOf(f); err != nil {
			return
		}
		seen[f.String()] = true
		out = append(out, f)
	}
	for _, f := range ops {
		add(f)
	}
	for _, f := range p.Prefer {
		add(f)
	}
	for _, f := range p.Known {
		add(f)
	}
	for _, n := range promoteCandidates {
		add(MustParse(n))
	}
	if !p.BuiltinOnly {
		for _, f := range registeredFormats() {
			add(f)
		}
	}
	return out
}

// registeredFormats returns the formats built from registered Codecs so
// far, by name.
func registeredFormats() []Format {
	registry.RLock()
	names := make([]string, 0, len(registry.made))
	for n, m := range registry.made {
		if m.codec != nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	fs := make([]Format, len(names))
	for i, n := range names {
		fs[i] = registry.made[n].f
	}
	registry.RUnlock()
	return fs
}

// Promote is Promoter{}.Promote: the least upper bound of a and b among
// the known formats.
func Promote(a, b Format) (Format, error) { return Promoter{}.Promote(a, b) }

// PromoteBlock promotes two block-scaled formats of the same kind (MX or
// block posit) and block size by their element formats: blocks share one
// power-of-two scale chosen the same way, so when the elements of A are
// contained in those of C, every block of A is a block of C. Formats of
// different kinds or block sizes do not promote, and neither do elements
// whose promotion is not an element format of that kind.
func (p Promoter) PromoteBlock(a, b BlockFormat) (BlockFormat, error) {
	a.mustBeValid()
	b.mustBeValid()
	switch {
	case a == b:
		return a, nil
	case a.kind != b.kind:
		return BlockFormat{}, fmt.Errorf("quant: promote %v and %v: block formats of different kinds (MX and block posit) choose their scales differently and do not promote", a, b)
	case a.block != b.block:
		return BlockFormat{}, fmt.Errorf("quant: promote %v and %v: blocks of %d and %d values do not promote", a, b, a.block, b.block)
	}
	e, err := p.Promote(a.elem, b.elem)
	if err != nil {
		return BlockFormat{}, fmt.Errorf("quant: promote %v and %v: elements: %w", a, b, err)
	}
	var r BlockFormat
	if a.kind == blockMX {
		r, err = NewMX(e, a.block)
	} else if pe, ok := e.(Posit); ok {
		r, err = NewBlockPosit(pe, a.block)
	} else {
		err = fmt.Errorf("%v is not a posit", e)
	}
	if err != nil {
		return BlockFormat{}, fmt.Errorf("quant: promote %v and %v: the elements promote to %v, which is no element format of the kind: %w", a, b, e, err)
	}
	return r, nil
}
