package deploy_test

import (
	"strings"
	"testing"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/quant"
)

// The float search covers every split 1+e+m of the width with m >= 1,
// and for each the encodings the float grammar allows.
func TestFloatCandidates(t *testing.T) {
	for _, tc := range []struct {
		bits, n int
		splits  []string
	}{
		{6, 20, []string{"e1m4", "e2m3", "e3m2", "e4m1"}},
		{5, 14, []string{"e1m3", "e2m2", "e3m1"}},
		{4, 8, []string{"e1m2", "e2m1"}},
	} {
		fs := deploy.FloatCandidates(tc.bits)
		seen := map[string]bool{}
		splits := map[string]bool{}
		for _, f := range fs {
			if f.Bits() != tc.bits {
				t.Errorf("%d bits: candidate %v has %d bits", tc.bits, f, f.Bits())
			}
			if g, err := quant.Parse(f.String()); err != nil || g.String() != f.String() {
				t.Errorf("%v does not parse back: %v", f, err)
			}
			if seen[f.String()] {
				t.Errorf("%v twice", f)
			}
			seen[f.String()] = true
			splits[split(f.String())] = true
		}
		if len(fs) != tc.n {
			t.Errorf("%d bits: %d candidates %v, want %d", tc.bits, len(fs), fs, tc.n)
		}
		for _, s := range tc.splits {
			if !splits[s] {
				t.Errorf("%d bits: no candidate of split %s", tc.bits, s)
			}
		}
	}
	if got := deploy.PositFor(4) + deploy.PositFor(5) + deploy.PositFor(6); got != "posit(4,0)posit(5,1)posit(6,1)" {
		t.Errorf("PositFor: %s", got)
	}
}

// split returns "e3m2" for "float(3,2,...)" and for the preset names
// "fp6-e3m2".
func split(name string) string {
	if rest, ok := strings.CutPrefix(name, "float("); ok {
		p := strings.Split(strings.TrimSuffix(rest, ")"), ",")
		return "e" + p[0] + "m" + p[1]
	}
	_, s, _ := strings.Cut(name, "-")
	return s
}
