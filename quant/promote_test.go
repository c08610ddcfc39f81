package quant_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
)

// slowSet is a format's value set written from the definition: the
// decoded values of its codes, NaN and NaR as one NaN, -0 apart from +0.
type slowSet struct {
	vals         map[float64]bool // +0 stands for +0 only
	nan, negZero bool
}

// slowSetOf decodes every code of a format of at most 16 bits; of a wider
// one, every code that is a multiple of a stride, and the codes near the
// extremes: enough to tell the few wide candidates apart, though not a
// proof of containment.
func slowSetOf(f quant.Format) *slowSet {
	s := &slowSet{vals: map[float64]bool{}}
	add := func(c uint64) {
		v := f.Decode(uint32(c))
		switch {
		case math.IsNaN(v):
			s.nan = true
		case v == 0 && math.Signbit(v):
			s.negZero = true
		default:
			s.vals[v] = true
		}
	}
	n := uint64(1) << f.Bits()
	step := uint64(1)
	if f.Bits() > 16 {
		step = 4093
	}
	for c := uint64(0); c < n; c += step {
		add(c)
	}
	for c := range uint64(64) {
		add(c)
		add(n - 1 - c)
		add(n/2 - 1 - c)
		add(n/2 + c)
	}
	return s
}

type slowRef struct {
	sets map[string]*slowSet
	leqs map[[2]string]bool
}

// leq reports a ≤ b: every value of a is a value of b. A wide b holds v
// when b rounds v to itself.
func (r *slowRef) leq(a, b quant.Format) bool {
	key := [2]string{a.String(), b.String()}
	if l, ok := r.leqs[key]; ok {
		return l
	}
	l := r.slowLeq(a, b)
	r.leqs[key] = l
	return l
}

func (r *slowRef) slowLeq(a, b quant.Format) bool {
	sa, sb := r.set(a), r.set(b)
	wide := b.Bits() > 16
	if !wide && len(sa.vals) > len(sb.vals) {
		return false
	}
	if sa.nan && !(sb.nan || wide && math.IsNaN(b.Round64(math.NaN()))) {
		return false
	}
	if sa.negZero && !(sb.negZero || wide && math.Signbit(b.Round64(math.Copysign(0, -1)))) {
		return false
	}
	for v := range sa.vals {
		if !sb.vals[v] && !(wide && b.Round64(v) == v) {
			return false
		}
	}
	return true
}

func (r *slowRef) set(f quant.Format) *slowSet {
	if s, ok := r.sets[f.String()]; ok {
		return s
	}
	s := slowSetOf(f)
	r.sets[f.String()] = s
	return s
}

// builtin promotes among the built-in candidates only: other tests of the
// package register formats, which would otherwise become candidates.
var builtin = quant.Promoter{BuiltinOnly: true}

// chosen are the formats of at most 12 bits the reference checks.
var chosen = []string{
	"posit(4,0)", "posit(5,1)", "posit(6,0)", "posit(6,2)", "posit(8,0)", "posit(8,1)", "posit(8,2)", "posit(10,1)", "posit(12,2)", "posit(8,1,scale=2)",
	"fp4-e2m1", "fp6-e2m3", "fp6-e3m2", "fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd", "fp8-ibm-bwd", "fp(1,4,7)",
	"fixed(8,4)", "fixed(12,6)",
}

func TestPromoteAgainstEnumeration(t *testing.T) {
	r := &slowRef{sets: map[string]*slowSet{}, leqs: map[[2]string]bool{}}
	for _, an := range chosen {
		for _, bn := range chosen {
			a, b := quant.MustParse(an), quant.MustParse(bn)
			cands := builtin.Candidates(a, b)
			var upper []quant.Format
			for _, c := range cands {
				if r.leq(a, c) && r.leq(b, c) {
					upper = append(upper, c)
				}
			}
			// The minimal upper bounds, one of each class of equal sets.
			var minimal []quant.Format
			for _, m := range upper {
				smaller := slices.ContainsFunc(upper, func(u quant.Format) bool { return r.leq(u, m) && !r.leq(m, u) })
				dup := slices.ContainsFunc(minimal, func(k quant.Format) bool { return r.leq(k, m) && r.leq(m, k) })
				if !smaller && !dup {
					minimal = append(minimal, m)
				}
			}
			got, err := builtin.Promote(a, b)
			name := fmt.Sprintf("Promote(%s, %s)", an, bn)
			var amb *quant.AmbiguousError
			var f64 *quant.NeedsFloat64
			switch {
			case len(upper) == 0:
				if !errors.As(err, &f64) {
					t.Errorf("%s = %v, %v; want NeedsFloat64", name, got, err)
				}
			case len(minimal) > 1:
				if !errors.As(err, &amb) || len(amb.Bounds) != len(minimal) {
					t.Errorf("%s = %v, %v; want an error naming %v", name, got, err, minimal)
					continue
				}
				for _, m := range minimal {
					if !slices.ContainsFunc(amb.Bounds, func(k quant.Format) bool { return r.leq(k, m) && r.leq(m, k) }) {
						t.Errorf("%s: error %v does not name %v", name, err, m)
					}
				}
			case err != nil:
				t.Errorf("%s: %v; want %v", name, err, minimal[0])
			default:
				if !r.leq(a, got) || !r.leq(b, got) {
					t.Errorf("%s = %v, which does not hold both", name, got)
				}
				for _, c := range upper {
					if r.leq(c, got) && !r.leq(got, c) {
						t.Errorf("%s = %v, but %v is smaller and holds both", name, got, c)
					}
				}
			}
		}
	}
}

// presets are the formats of the promotion table in docs/formats.md.
var presets = []string{"posit(8,1)", "posit(8,2)", "posit(16,1)", "posit(32,2)", "fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd", "fp8-ibm-bwd",
	"fp16", "bf16", "fp32", "fixed(8,4)", "fixed(12,6)", "fixed(16,8)"}

// errKey names a Promote result for comparisons: the format or the kind
// of error and the bounds it names.
func errKey(f quant.Format, err error) string {
	var amb *quant.AmbiguousError
	var f64 *quant.NeedsFloat64
	switch {
	case errors.As(err, &amb):
		var names []string
		for _, b := range amb.Bounds {
			names = append(names, b.String())
		}
		slices.Sort(names)
		return "ambiguous " + strings.Join(names, " | ")
	case errors.As(err, &f64):
		return "float64"
	case err != nil:
		return err.Error()
	}
	return f.String()
}

func TestPromoteProperties(t *testing.T) {
	fs := make([]quant.Format, len(presets))
	for i, n := range presets {
		fs[i] = quant.MustParse(n)
	}
	for _, a := range fs {
		if got, err := builtin.Promote(a, a); got != a || err != nil {
			t.Errorf("Promote(%v, %v) = %v, %v", a, a, got, err)
		}
		for _, b := range fs {
			ab, err1 := builtin.Promote(a, b)
			ba, err2 := builtin.Promote(b, a)
			if errKey(ab, err1) != errKey(ba, err2) {
				t.Errorf("Promote(%v, %v) = %s, Promote(%v, %v) = %s", a, b, errKey(ab, err1), b, a, errKey(ba, err2))
			}
			if err1 != nil {
				continue
			}
			for _, c := range fs {
				bc, err := builtin.Promote(b, c)
				if err != nil {
					continue
				}
				l, err1 := builtin.Promote(ab, c)
				r, err2 := builtin.Promote(a, bc)
				if errKey(l, err1) != errKey(r, err2) {
					t.Errorf("(%v ∨ %v) ∨ %v = %s, %v ∨ (%v ∨ %v) = %s", a, b, c, errKey(l, err1), a, b, c, errKey(r, err2))
				}
			}
		}
	}
}

func TestPromotePrefer(t *testing.T) {
	a, b := quant.FP8E4M3, quant.MustParse("posit(8,1)")
	_, err := builtin.Promote(a, b)
	var amb *quant.AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("Promote(%v, %v): %v, want an AmbiguousError", a, b, err)
	}
	for _, want := range amb.Bounds {
		got, err := quant.Promoter{Prefer: []quant.Format{want}, BuiltinOnly: true}.Promote(a, b)
		if got != want || err != nil {
			t.Errorf("Promote(%v, %v) preferring %v = %v, %v", a, b, want, got, err)
		}
	}
	// A preferred format that is no minimal bound settles nothing.
	if _, err := (quant.Promoter{Prefer: []quant.Format{quant.FP32}, BuiltinOnly: true}).Promote(a, b); !errors.As(err, &amb) {
		t.Errorf("preferring fp32: %v, want an AmbiguousError", err)
	}
}

func TestPromoteFloat64(t *testing.T) {
	_, err := quant.Promote(quant.MustParse("posit(32,2)"), quant.FP32)
	var f64 *quant.NeedsFloat64
	if !errors.As(err, &f64) {
		t.Errorf("Promote(posit(32,2), fp32): %v, want NeedsFloat64", err)
	}
	if got, err := quant.Promote(quant.MustParse("posit(16,1)"), quant.MustParse("posit(32,2)")); err != nil || got.String() != "posit(32,2)" {
		t.Errorf("Promote(posit(16,1), posit(32,2)) = %v, %v", got, err)
	}
	if got, err := quant.Promote(quant.FP8E5M2, quant.FP16); err != nil || got != quant.FP16 {
		t.Errorf("Promote(fp8-e5m2, fp16) = %v, %v", got, err)
	}
}

func TestPromoteBlock(t *testing.T) {
	a, b := quant.MustParseBlock("mxfp4-e2m1"), quant.MustParseBlock("mxfp6-e2m3")
	if got, err := (quant.Promoter{}).PromoteBlock(a, b); err != nil || got != b {
		t.Errorf("PromoteBlock(%v, %v) = %v, %v", a, b, got, err)
	}
	if _, err := (quant.Promoter{}).PromoteBlock(a, quant.MustParseBlock("posit(8,1,block=32)")); err == nil {
		t.Errorf("PromoteBlock of an MX and a block posit: no error")
	}
}

// quarters is a registered test family: quarters(n) has the codes
// 0..2^n-2 with values c/4, rounded to nearest, ties to even, and NaN.
type quarters struct{ n int }

func (q quarters) String() string { return fmt.Sprintf("promote-quarters(%d)", q.n) }
func (q quarters) Bits() int      { return q.n }
func (q quarters) nan() uint32    { return uint32(1)<<q.n - 1 }
func (q quarters) Encode(x float32) uint32 {
	if x != x {
		return q.nan()
	}
	return uint32(min(max(math.RoundToEven(float64(x)*4), 0), float64(q.nan()-1)))
}
func (q quarters) Decode(c uint32) float64 {
	if c == q.nan() {
		return math.NaN()
	}
	return float64(c) / 4
}

func TestPromoteRegistered(t *testing.T) {
	err := quant.Register("promote-quarters", func(args []string) (quant.Codec, error) {
		if len(args) != 1 || args[0] != "3" {
			return nil, errors.New("only promote-quarters(3)")
		}
		return quarters{3}, nil
	})
	first := err == nil // not a second run (-count)
	if err != nil && !strings.Contains(err.Error(), "already registered") {
		t.Fatal(err)
	}
	// Tables have a NaN code; fp6 and fp4 have none, and the 8-bit
	// formats that hold 0.25, 1 and 1.5 are many and incomparable.
	a, b := quant.MustParse("table(0,0.25,1)"), quant.MustParse("table(0,0.5,1.5)")
	var amb *quant.AmbiguousError
	if _, err := quant.Promote(a, b); first && !errors.As(err, &amb) {
		t.Fatalf("before building promote-quarters(3): Promote(%v, %v): %v, want an AmbiguousError", a, b, err)
	}
	// Built, it is a candidate and a least upper bound; other tests'
	// registered formats may be least upper bounds too.
	q := quant.MustParse("promote-quarters(3)")
	got, err := quant.Promote(a, b)
	if !(err == nil && got == q || errors.As(err, &amb) && slices.Contains(amb.Bounds, q)) {
		t.Errorf("Promote(%v, %v) = %v, %v; want %v", a, b, got, err, q)
	}
	if _, err := builtin.Promote(a, b); !errors.As(err, &amb) {
		t.Errorf("BuiltinOnly: Promote(%v, %v): %v, want an AmbiguousError", a, b, err)
	}
}
