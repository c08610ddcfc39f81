package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrTooFewValues is returned by Welch and BootstrapDiff when a sample
// has fewer than 2 values: one seed per row measures no spread, and so
// no test.
var ErrTooFewValues = errors.New("eval: significance needs at least 2 values (seeds) per sample")

// A TTest is the outcome of Welch's t-test of two samples.
type TTest struct {
	T  float64 // the statistic, (mean(a) - mean(b)) / standard error
	DF float64 // Welch–Satterthwaite degrees of freedom
	P  float64 // two-sided p-value
}

// Welch returns Welch's t-test of the means of a and b, which does not
// assume equal variances: scipy.stats.ttest_ind(a, b, equal_var=False).
// Both samples need at least 2 values (ErrTooFewValues).
//
// Where scipy gives NaN, Welch gives the limit a reader expects: equal
// means with no spread in either sample give t = 0 and p = 1, different
// means with no spread t = ±Inf and p = 0; DF is then n_a + n_b - 2.
func Welch(a, b []float64) (TTest, error) {
	na, nb := float64(len(a)), float64(len(b))
	if len(a) < 2 || len(b) < 2 {
		return TTest{}, ErrTooFewValues
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	sa, sb := va/na, vb/nb // squared standard errors of the means
	d := ma - mb
	if sa+sb == 0 {
		r := TTest{DF: na + nb - 2}
		switch {
		case d == 0:
			r.P = 1
		default:
			r.T = math.Copysign(math.Inf(1), d)
		}
		return r, nil
	}
	t := d / math.Sqrt(sa+sb)
	df := (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	// Twice the lower tail at -|t|: the upper tail 1 - CDF(|t|) would lose
	// the digits of small p-values to cancellation.
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t))
	return TTest{T: t, DF: df, P: min(p, 1)}, nil
}

// BootstrapResamples is the number of resamples BootstrapDiff draws
// when given 0: enough that the 2.5% and 97.5% percentiles move by well
// under the interval's own width from one seed to another.
const BootstrapResamples = 10000

// BootstrapDiff returns the percentile-bootstrap 95% interval of
// mean(a) - mean(b): each of resamples rounds (0 means
// BootstrapResamples) draws len(a) values of a and len(b) values of b
// with replacement and takes the difference of their means; the interval
// is the 2.5% and 97.5% empirical quantiles (stat.Empirical) of those
// differences. The same seed gives the same interval. Both samples need
// at least 2 values (ErrTooFewValues).
func BootstrapDiff(a, b []float64, resamples int, seed uint64) (lo, hi float64, err error) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, ErrTooFewValues
	}
	if resamples < 0 {
		return 0, 0, fmt.Errorf("eval: %d bootstrap resamples", resamples)
	}
	if resamples == 0 {
		resamples = BootstrapResamples
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	mean := func(x []float64) float64 {
		s := 0.0
		for range x {
			s += x[rng.IntN(len(x))]
		}
		return s / float64(len(x))
	}
	diffs := make([]float64, resamples)
	for i := range diffs {
		diffs[i] = mean(a) - mean(b)
	}
	slices.Sort(diffs)
	return stat.Quantile(0.025, stat.Empirical, diffs, nil), stat.Quantile(0.975, stat.Empirical, diffs, nil), nil
}

// Holm returns the Holm-adjusted p-values of a family of tests, in the
// order of p: sorted ascending, the i-th smallest (i from 0) of m tests
// is multiplied by m - i, capped at 1, and made no smaller than the
// adjusted value before it. A test rejects its null hypothesis at level
// α, with the family-wise error rate held at α, when its adjusted
// p-value is at most α (Holm 1979, step-down). NaN entries are no test:
// they stay NaN and do not count in m.
func Holm(p []float64) []float64 {
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmpFloat(p[i], p[j]) })
	adj := make([]float64, len(p))
	for i := range adj {
		adj[i] = math.NaN()
	}
	m := len(idx)
	prev := 0.0
	for k, i := range idx {
		v := min(1, float64(m-k)*p[i])
		prev = max(prev, v)
		adj[i] = prev
	}
	return adj
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Significance says how a table tests each row against a baseline row.
// The zero value tests every metric against "fp32" at α = 0.05.
type Significance struct {
	// Baseline is the policy every other row is compared with; "" means
	// "fp32".
	Baseline string
	// Alpha is the family-wise level of the Holm-corrected tests; 0
	// means 0.05.
	Alpha float64
	// Resamples and Seed are BootstrapDiff's (0: BootstrapResamples).
	Resamples int
	Seed      uint64
	// Metrics are the metrics tested, the first one in Markdown tables;
	// nil tests every metric, and the Markdown shows the first.
	Metrics []string
}

func (o Significance) baseline() string {
	if o.Baseline == "" {
		return "fp32"
	}
	return o.Baseline
}

func (o Significance) alpha() float64 {
	if o.Alpha == 0 {
		return 0.05
	}
	return o.Alpha
}

// A Difference is one row of a table tested against the baseline row of
// the same metric.
type Difference struct {
	Policy, Metric string
	// Tested is false for the baseline row itself, for metrics not
	// tested, and when either row has fewer than 2 values; the other
	// fields are then zero.
	Tested bool
	TTest
	// Low and High bound the bootstrap 95% interval of mean(row) -
	// mean(baseline).
	Low, High float64
	// PHolm is P adjusted by Holm over the tested rows of the metric;
	// Differs is PHolm <= Alpha.
	PHolm   float64
	Differs bool
}

// Differences tests every result against the baseline policy's result
// of the same metric (Welch, BootstrapDiff) and corrects the p-values of
// each metric by Holm across its rows. It returns one Difference per
// result, in order; a missing baseline row leaves every row untested.
func Differences(rs []Result, o Significance) ([]Difference, error) {
	if a := o.alpha(); !(a > 0 && a < 1) {
		return nil, fmt.Errorf("eval: significance level %v not in (0, 1)", a)
	}
	base := map[string][]float64{}
	for _, r := range rs {
		if r.Policy == o.baseline() {
			base[r.Metric] = r.Values
		}
	}
	tested := func(m string) bool { return o.Metrics == nil || slices.Contains(o.Metrics, m) }
	ds := make([]Difference, len(rs))
	family := map[string][]int{} // metric -> indices of tested rows
	for i, r := range rs {
		ds[i] = Difference{Policy: r.Policy, Metric: r.Metric}
		b, ok := base[r.Metric]
		if !ok || r.Policy == o.baseline() || !tested(r.Metric) || len(r.Values) < 2 || len(b) < 2 {
			continue
		}
		tt, err := Welch(r.Values, b)
		if err != nil {
			return nil, err
		}
		lo, hi, err := BootstrapDiff(r.Values, b, o.Resamples, o.Seed)
		if err != nil {
			return nil, err
		}
		ds[i].Tested, ds[i].TTest, ds[i].Low, ds[i].High = true, tt, lo, hi
		family[r.Metric] = append(family[r.Metric], i)
	}
	for _, idx := range family {
		p := make([]float64, len(idx))
		for k, i := range idx {
			p[k] = ds[i].P
		}
		for k, adj := range Holm(p) {
			ds[idx[k]].PHolm = adj
			ds[idx[k]].Differs = adj <= o.alpha()
		}
	}
	return ds, nil
}
