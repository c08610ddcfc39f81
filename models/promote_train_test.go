package models

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// enumSet is a format's value set from the definition: every code
// decoded, NaN and NaR as one NaN, -0 apart from +0. Wider formats than
// 16 bits are not enumerated: enumHolds asks them whether they round a
// value to itself.
type enumSet struct {
	vals         map[float64]bool // +0 stands for +0 only
	nan, negZero bool
}

// enumSets caches value sets by format name.
type enumSets map[string]*enumSet

func (sets enumSets) enumerate(f quant.Format) *enumSet {
	if s, ok := sets[f.String()]; ok {
		return s
	}
	s := &enumSet{vals: map[float64]bool{}}
	sets[f.String()] = s
	for c := range uint64(1) << f.Bits() {
		switch v := f.Decode(uint32(c)); {
		case math.IsNaN(v):
			s.nan = true
		case v == 0 && math.Signbit(v):
			s.negZero = true
		default:
			s.vals[v] = true
		}
	}
	return s
}

// holds reports whether every value of a is a value of b. Of the wide
// formats, only fp32 is holds' a, and only fp32 holds it.
func (sets enumSets) holds(b, a quant.Format) bool {
	if a.Bits() > 16 {
		return a.String() == "fp32" && b.String() == "fp32"
	}
	sa := sets.enumerate(a)
	if b.Bits() <= 16 {
		sb := sets.enumerate(b)
		if sa.nan && !sb.nan || sa.negZero && !sb.negZero {
			return false
		}
		for v := range sa.vals {
			if !sb.vals[v] {
				return false
			}
		}
		return true
	}
	holds := func(v float64) bool {
		r := b.Round64(v)
		return r == v && math.Signbit(r) == math.Signbit(v) || math.IsNaN(v) && math.IsNaN(r)
	}
	if sa.nan && !holds(math.NaN()) || sa.negZero && !holds(math.Copysign(0, -1)) {
		return false
	}
	for v := range sa.vals {
		if !holds(v) {
			return false
		}
	}
	return true
}

// minimalBounds returns, by enumeration, the minimal upper bounds of a and
// b among the built-in candidates, one per class of equal value sets.
func minimalBounds(t *testing.T, a, b quant.Format) []quant.Format {
	t.Helper()
	sets := enumSets{}
	var upper []quant.Format
	for _, n := range quant.PromoteCandidates() {
		c := quant.MustParse(n)
		if c.Bits() > 16 && c.String() != "fp32" {
			continue // posit(32,2): no -0, so it holds no fp8 format
		}
		if sets.holds(c, a) && sets.holds(c, b) {
			upper = append(upper, c)
		}
	}
	var min []quant.Format
	for _, m := range upper {
		ok := true
		for _, u := range upper {
			if u != m && sets.holds(m, u) && (!sets.holds(u, m) || slices.Contains(min, u)) {
				ok = false // u is smaller, or equal and already kept
			}
		}
		if ok {
			min = append(min, m)
		}
	}
	return min
}

// Training with a policy that leaves a residual add's format unnamed
// while its inputs differ rounds the sum to their promotion: the
// checkpoint's recorded policy and scale histogram's library name it.
// ESRGAN's outer residual G/add sums conv_first's output and conv_body's,
// here posit(8,1) and fp8-e4m3, whose least upper bounds among the
// built-in formats are several (fp16 and bf16: e4m3 has -0, which no
// posit has): the policy's prefer list settles it, skipping fp32, which
// holds both but is no minimal bound.
func TestTrainPromotesResidual(t *testing.T) {
	a, b := quant.MustParse("posit(8,1)"), quant.FP8E4M3
	bounds := minimalBounds(t, a, b)
	if len(bounds) < 2 {
		t.Fatalf("minimal bounds of %v and %v: %v, want several (the test needs a choice to settle)", a, b, bounds)
	}
	want := bounds[len(bounds)-1]
	pol := &policy.Policy{Name: "promote-test"}
	for _, s := range []string{"G/conv_first:out=" + a.String(), "G/conv_body:out=" + b.String(), "prefer=fp32," + want.String()} {
		if err := pol.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	tr := newESRTrainer(t, tinyESRGAN(t, "3"), pol)
	for range 2 {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	rec := c.Meta[gan.MetaPolicy]
	if !strings.Contains(rec, `"G/add" = "`+want.String()+`"`) {
		t.Errorf("recorded policy does not name G/add's promoted format %v:\n%s", want, rec)
	}
	saved, err := policy.Read(strings.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got := saved.Promoted(); len(got) != 1 || got["G/add"] != want {
		t.Errorf("recorded promotions %v, want G/add: %v", got, want)
	}
	if saved.String() != pol.String() {
		t.Errorf("the record changed the policy:\n%s\nwant\n%s", saved.String(), pol.String())
	}

	nets, _, err := Load(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := gan.Histograms(nets, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, h := range hs {
		if h.Role != "sum" {
			continue
		}
		found++
		if h.Layer != "G/add" || h.Format(saved) != want || h.Hist.Total() == 0 {
			t.Errorf("histogram of %s %s: format %v, %d values; want G/add in %v", h.Layer, h.Role, h.Format(saved), h.Hist.Total(), want)
		}
	}
	if found != 1 {
		t.Errorf("%d residual sums among the histograms, want G/add alone", found)
	}

	// Named none, the sum stays float32: nothing promoted, nothing recorded.
	if err := pol.Apply("G/add:other=none"); err != nil {
		t.Fatal(err)
	}
	tr = newESRTrainer(t, tinyESRGAN(t, "3"), pol)
	if _, err := tr.TrainStep(); err != nil {
		t.Fatal(err)
	}
	if c, err = tr.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if rec := c.Meta[gan.MetaPolicy]; rec != pol.String() {
		t.Errorf("G/add named none: recorded policy\n%s\nwant the policy alone\n%s", rec, pol.String())
	}
}
