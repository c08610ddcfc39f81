package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/pyref"
)

// welchSamples are fixed samples of the sizes tables have (a few seeds),
// with variances far apart and alike.
var welchSamples = [][2][]float64{
	{{12.1, 13.4, 11.9}, {15.2, 14.8, 16.9, 15.5}},
	{{3.25, 3.5, 3.125, 3.75, 3.0}, {3.3, 3.2}},
	{{100.5, 99.25, 101.75}, {100.0, 100.125, 99.875}},
	{{0.001, 0.0011, 0.00095}, {0.5, 0.7, 0.45, 0.61, 0.52, 0.49}},
	{{1, 2}, {1, 2}},
	{{-5.5, 7.25, 1e3, 42}, {17, 18}},
}

// TestWelchScipy compares Welch with scipy.stats.ttest_ind(equal_var=False)
// (skipped without python3 and scipy).
func TestWelchScipy(t *testing.T) {
	py := pyref.Python("scipy.stats")
	if py == "" {
		t.Skip("no python3 with scipy")
	}
	var in strings.Builder
	for _, s := range welchSamples {
		for _, x := range s {
			for _, v := range x {
				fmt.Fprintf(&in, "%s ", strconv.FormatFloat(v, 'g', -1, 64))
			}
			in.WriteString("\n")
		}
	}
	const script = `
import sys
from scipy import stats
lines = sys.stdin.read().strip().split("\n")
for i in range(0, len(lines), 2):
    a = [float(v) for v in lines[i].split()]
    b = [float(v) for v in lines[i + 1].split()]
    r = stats.ttest_ind(a, b, equal_var=False)
    df = getattr(r, "df", None)
    if df is None:  # scipy < 1.11: the Welch-Satterthwaite formula, as scipy's _unequal_var_ttest_denom
        va, vb = stats.tvar(a) / len(a), stats.tvar(b) / len(b)
        df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    print(repr(float(r.statistic)), repr(float(df)), repr(float(r.pvalue)))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scipy: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(welchSamples) {
		t.Fatalf("scipy printed %q", out)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		got, err := Welch(welchSamples[i][0], welchSamples[i][1])
		if err != nil {
			t.Fatal(err)
		}
		for j, g := range []float64{got.T, got.DF, got.P} {
			want, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				t.Fatalf("scipy printed %q", l)
			}
			if math.Abs(g-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("sample %d figure %d: got %.17g, scipy %.17g", i, j, g, want)
			}
		}
	}
}

func TestWelchHandCases(t *testing.T) {
	// Equal samples: no difference at all.
	r, err := Welch([]float64{2, 3, 4}, []float64{2, 3, 4})
	if err != nil || r.T != 0 || r.P != 1 {
		t.Errorf("equal samples: %+v, %v; want t 0, p 1", r, err)
	}
	// No spread, equal means: p = 1, not NaN.
	r, err = Welch([]float64{5, 5}, []float64{5, 5, 5})
	if err != nil || r.T != 0 || r.P != 1 || r.DF != 3 {
		t.Errorf("constant equal samples: %+v, %v", r, err)
	}
	// No spread, different means: certain.
	r, err = Welch([]float64{5, 5}, []float64{6, 6})
	if err != nil || !math.IsInf(r.T, -1) || r.P != 0 {
		t.Errorf("constant different samples: %+v, %v", r, err)
	}
	// One seed: no test, an error that says so.
	if _, err := Welch([]float64{1}, []float64{1, 2}); !errors.Is(err, ErrTooFewValues) {
		t.Errorf("one value: %v", err)
	}
	if _, _, err := BootstrapDiff([]float64{1, 2}, []float64{3}, 0, 1); !errors.Is(err, ErrTooFewValues) {
		t.Errorf("bootstrap of one value: %v", err)
	}
	// Symmetric: swapping the samples negates t and keeps p.
	a, b := welchSamples[0][0], welchSamples[0][1]
	x, _ := Welch(a, b)
	y, _ := Welch(b, a)
	if x.T != -y.T || x.P != y.P || x.DF != y.DF || !(x.P > 0 && x.P < 0.05) {
		t.Errorf("Welch(a, b) %+v, Welch(b, a) %+v", x, y)
	}
}

func TestBootstrapDiff(t *testing.T) {
	a, b := []float64{12.1, 13.4, 11.9, 12.7}, []float64{15.2, 14.8, 16.9, 15.5}
	lo, hi, err := BootstrapDiff(a, b, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	lo2, hi2, _ := BootstrapDiff(a, b, 0, 7)
	if lo != lo2 || hi != hi2 {
		t.Errorf("same seed, other interval: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	// The interval lies within the extremes a resample can reach, and
	// holds the difference of the means.
	d := (12.1+13.4+11.9+12.7)/4 - (15.2+14.8+16.9+15.5)/4
	if !(lo < d && d < hi && lo >= 11.9-16.9 && hi <= 13.4-14.8) {
		t.Errorf("interval [%v, %v] for a difference of %v", lo, hi, d)
	}
	// Equal constant samples: the interval is the point 0.
	if lo, hi, _ := BootstrapDiff([]float64{3, 3}, []float64{3, 3, 3}, 100, 1); lo != 0 || hi != 0 {
		t.Errorf("constant samples: [%v, %v]", lo, hi)
	}
}

// TestHolm checks Holm's correction against a hand-worked example: p =
// 0.01, 0.04, 0.03, 0.005 of m = 4 tests sort to 0.005, 0.01, 0.03, 0.04,
// multiplied by 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04, the last raised to
// 0.06 to keep the order. At α = 0.05 the first two reject, and the
// step-down stops at 0.03 (0.06 > 0.05), so 0.04 does not either, though
// 0.04 ≤ α uncorrected.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.03, 0.06, math.NaN(), 0.06, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Holm: got %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("capped at 1: %v", got)
	}
}

func TestDifferences(t *testing.T) {
	rs := []Result{
		{Policy: "fp32", Metric: "FID", Values: []float64{10, 10.5, 9.8}},
		{Policy: "posit8", Metric: "FID", Values: []float64{10.2, 10.1, 10.4}},
		{Policy: "posit6", Metric: "FID", Values: []float64{30, 31, 29.5}},
		{Policy: "bf16", Metric: "FID", Values: []float64{11}},
		{Policy: "fp32", Metric: "s/step", Values: []float64{1, 2, 3}},
		{Policy: "posit8", Metric: "s/step", Values: []float64{4, 5, 6}},
	}
	ds, err := Differences(rs, Significance{Metrics: []string{"FID"}})
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Tested || ds[3].Tested || ds[5].Tested {
		t.Errorf("baseline, one seed or untested metric tested: %+v", ds)
	}
	if !ds[1].Tested || ds[1].Differs || !ds[2].Tested || !ds[2].Differs {
		t.Errorf("posit8 should not differ, posit6 should: %+v %+v", ds[1], ds[2])
	}
	// Holm over the two tested FID rows.
	if want := min(1, 2*min(ds[1].P, ds[2].P)); ds[2].PHolm != want {
		t.Errorf("posit6 Holm %v, want %v", ds[2].PHolm, want)
	}
	if _, err := Differences(rs, Significance{Alpha: 1.5}); err == nil {
		t.Error("α = 1.5 accepted")
	}
	var md, cs strings.Builder
	if err := WriteMarkdownSignificance(&md, rs, Significance{Metrics: []string{"FID"}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| policy | FID | s/step | p vs fp32 | 95% CI of difference | differs from fp32 |",
		"| posit6 |", "| yes |", "| bf16 | 11 | – | – | – | – |", "Significance needs ≥ 2 seeds"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteCSVSignificance(&cs, rs, Significance{Metrics: []string{"FID"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(cs.String(), "\n")
	if lines[0] != "policy,metric,n,mean,std,values,baseline,p,p_holm,diff_ci_low,diff_ci_high,differs" ||
		!strings.HasPrefix(lines[3], "posit6,FID,3,") || !strings.HasSuffix(lines[3], ",yes") ||
		!strings.HasSuffix(lines[1], ",,,,,,") {
		t.Errorf("CSV:\n%s", cs.String())
	}
}

func TestFIDStdErr(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 400, 3
	ref, gen := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			ref.Set(i, j, rng.NormFloat64())
			gen.Set(i, j, 0.5+1.2*rng.NormFloat64())
		}
	}
	rs, err := StatsOf(ref)
	if err != nil {
		t.Fatal(err)
	}
	se, err := FIDStdErr(rs, gen, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	se2, _ := FIDStdErr(rs, gen, 0, 1)
	gs, _ := StatsOf(gen)
	fid, _ := FrechetDistance(rs, gs)
	// Sampling error of a few hundred 3-d points: a small fraction of
	// the FID, but not zero; and the same for the same seed.
	if se != se2 || !(se > 0.01*fid && se < 0.5*fid) {
		t.Errorf("FID %v, standard error %v then %v", fid, se, se2)
	}
	if _, err := FIDStdErr(rs, gen, 1, 1); err == nil {
		t.Error("one resample accepted")
	}
}
