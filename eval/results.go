package eval

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/numfmt"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// A Result is one metric measured for one policy, once per seed.
type Result struct {
	Policy string    // quantization policy, e.g. "posit(8,1)"
	Metric string    // e.g. "FID" or "PSNR (dB)"
	Values []float64 // one value per seed
}

// A Summary is a Result reduced to mean and spread.
type Summary struct {
	Policy, Metric string
	N              int     // number of seeds
	Mean           float64 // mean over seeds
	Std            float64 // sample standard deviation (N-1); NaN if N = 1
}

// Summarize returns the summary of each result, in order. Results must
// have at least one value each, and no two may share policy and metric.
func Summarize(rs []Result) ([]Summary, error) {
	seen := make(map[[2]string]bool)
	out := make([]Summary, len(rs))
	for i, r := range rs {
		k := [2]string{r.Policy, r.Metric}
		if seen[k] {
			return nil, fmt.Errorf("eval: two results for policy %q, metric %q", r.Policy, r.Metric)
		}
		seen[k] = true
		if len(r.Values) == 0 {
			return nil, fmt.Errorf("eval: no values for policy %q, metric %q", r.Policy, r.Metric)
		}
		s := Summary{Policy: r.Policy, Metric: r.Metric, N: len(r.Values), Std: math.NaN()}
		if len(r.Values) == 1 {
			s.Mean = r.Values[0]
		} else {
			s.Mean, s.Std = stat.MeanStdDev(r.Values, nil)
		}
		out[i] = s
	}
	return out, nil
}

// WriteMarkdown writes a Markdown table with a row per policy and a column
// per metric, both in order of first appearance. A cell reads "mean ± std"
// over seeds (sample standard deviation), both rounded to the second
// significant digit of std; with one seed, or with std = 0, it holds the
// mean to 6 significant digits. A footer line gives the number of seeds
// (or says that one seed measures no spread).
func WriteMarkdown(w io.Writer, rs []Result) error { return writeMarkdown(w, rs, nil) }

// WriteMarkdownSignificance writes WriteMarkdown's table with three
// columns more at the end, for the first metric of sig.Metrics (or of
// the table, if nil): the p-value of Welch's test of each row against the
// baseline row, the bootstrap 95% interval of the difference of means,
// and whether the row differs from the baseline at sig's level, Holm-
// corrected across rows (Differences). A row that cannot be tested shows
// "–"; a footer line says how the columns were made.
func WriteMarkdownSignificance(w io.Writer, rs []Result, sig Significance) error {
	return writeMarkdown(w, rs, &sig)
}

func writeMarkdown(w io.Writer, rs []Result, sig *Significance) error {
	ss, err := Summarize(rs)
	if err != nil {
		return err
	}
	var ds []Difference
	if sig != nil {
		if ds, err = Differences(rs, *sig); err != nil {
			return err
		}
	}
	policies, metrics := order(ss)
	cell := make(map[[2]string]Summary, len(ss))
	for _, s := range ss {
		cell[[2]string{s.Policy, s.Metric}] = s
	}
	var head string // the metric the significance columns test
	diff := map[string]Difference{}
	if sig != nil {
		head = metrics[0]
		if len(sig.Metrics) > 0 {
			head = sig.Metrics[0]
		}
		for _, d := range ds {
			if d.Metric == head {
				diff[d.Policy] = d
			}
		}
	}
	var b strings.Builder
	b.WriteString("| policy |")
	for _, m := range metrics {
		fmt.Fprintf(&b, " %s |", mdEscape(m))
	}
	if sig != nil {
		base := mdEscape(sig.baseline())
		fmt.Fprintf(&b, " p vs %s | 95%% CI of difference | differs from %s |", base, base)
	}
	b.WriteString("\n|---|")
	for range metrics {
		b.WriteString("---:|")
	}
	if sig != nil {
		b.WriteString("---:|---:|:---:|")
	}
	b.WriteString("\n")
	seeds := map[int]bool{}
	for _, p := range policies {
		fmt.Fprintf(&b, "| %s |", mdEscape(p))
		for _, m := range metrics {
			s, ok := cell[[2]string{p, m}]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			seeds[s.N] = true
			fmt.Fprintf(&b, " %s |", formatMeanStd(s.Mean, s.Std))
		}
		if sig != nil {
			if d, ok := diff[p]; ok && d.Tested {
				yes := "no"
				if d.Differs {
					yes = "yes"
				}
				fmt.Fprintf(&b, " %s | [%s, %s] | %s |", formatP(d.P), formatG3(d.Low), formatG3(d.High), yes)
			} else {
				b.WriteString(" – | – | – |")
			}
		}
		b.WriteString("\n")
	}
	if len(seeds) == 1 {
		for n := range seeds {
			if n == 1 {
				b.WriteString("\nOne seed per policy: each cell is that run's value, with no seed-to-seed spread measured.\n")
				continue
			}
			fmt.Fprintf(&b, "\nMean ± sample standard deviation over %d seeds.\n", n)
		}
	} else {
		b.WriteString("\nMean ± sample standard deviation over seeds (the number of seeds differs between cells; see the CSV).\n")
	}
	if sig != nil {
		b.WriteString(significanceNote(ds, head, *sig))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// WriteCSV writes one line per result: policy, metric, n, mean, std (the
// sample standard deviation, empty if n = 1) and the values separated by
// ";", all numbers in the shortest form that reads back exactly.
func WriteCSV(w io.Writer, rs []Result) error { return writeCSV(w, rs, nil) }

// WriteCSVSignificance writes WriteCSV's lines with six columns more at
// the end, for the metrics sig tests (Differences): baseline (the policy
// compared with), p (Welch's two-sided p-value), p_holm (Holm-corrected
// across the rows of the metric), diff_ci_low and diff_ci_high (the
// bootstrap 95% interval of mean - the baseline's mean) and differs
// ("yes" or "no" at sig's level). The cells of a line not tested are
// empty.
func WriteCSVSignificance(w io.Writer, rs []Result, sig Significance) error {
	return writeCSV(w, rs, &sig)
}

func writeCSV(w io.Writer, rs []Result, sig *Significance) error {
	ss, err := Summarize(rs)
	if err != nil {
		return err
	}
	var ds []Difference
	if sig != nil {
		if ds, err = Differences(rs, *sig); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	head := []string{"policy", "metric", "n", "mean", "std", "values"}
	if sig != nil {
		head = append(head, "baseline", "p", "p_holm", "diff_ci_low", "diff_ci_high", "differs")
	}
	cw.Write(head)
	for i, s := range ss {
		std := ""
		if s.N > 1 {
			std = formatFloat(s.Std)
		}
		vs := make([]string, len(rs[i].Values))
		for j, v := range rs[i].Values {
			vs[j] = formatFloat(v)
		}
		line := []string{s.Policy, s.Metric, strconv.Itoa(s.N), formatFloat(s.Mean), std, strings.Join(vs, ";")}
		if sig != nil {
			if d := ds[i]; d.Tested {
				yes := "no"
				if d.Differs {
					yes = "yes"
				}
				line = append(line, sig.baseline(), formatFloat(d.P), formatFloat(d.PHolm), formatFloat(d.Low), formatFloat(d.High), yes)
			} else {
				line = append(line, "", "", "", "", "", "")
			}
		}
		cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// significanceNote explains the significance columns of a Markdown
// table that tests metric head.
func significanceNote(ds []Difference, head string, sig Significance) string {
	base := mdEscape(sig.baseline())
	tested, rows, hasBase := 0, 0, false
	for _, d := range ds {
		if d.Metric != head {
			continue
		}
		if d.Policy == sig.baseline() {
			hasBase = true
			continue
		}
		rows++
		if d.Tested {
			tested++
		}
	}
	resamples := sig.Resamples
	if resamples == 0 {
		resamples = BootstrapResamples
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nSignificance of %s against %s: p is Welch's t-test over seeds (unequal variances, two-sided); the 95%% CI is a percentile bootstrap (%d resamples, seed %d) of the row's mean minus %s's; \"differs from %s\" is p Holm-corrected across the %d tested rows at α = %g.",
		mdEscape(head), base, resamples, sig.Seed, base, base, tested, sig.alpha())
	switch {
	case !hasBase:
		fmt.Fprintf(&b, " The table has no %s row: no row is tested.", base)
	case tested < rows:
		b.WriteString(" Significance needs ≥ 2 seeds in both rows: rows with fewer show –.")
	}
	b.WriteString("\n")
	return b.String()
}

// formatP prints a p-value to 3 significant digits.
func formatP(p float64) string {
	if p < 1e-4 && p > 0 {
		return strconv.FormatFloat(p, 'e', 2, 64)
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}

// formatG3 prints a bound of an interval to 3 significant digits.
func formatG3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// BarChart returns a bar chart of one metric: a bar per policy at the mean
// over seeds, with error bars of ± one sample standard deviation (none for
// a single seed).
func BarChart(rs []Result, metric string) (*plot.Plot, error) {
	ss, err := Summarize(rs)
	if err != nil {
		return nil, err
	}
	var names []string
	var means plotter.Values
	var xys plotter.XYs
	var errs plotter.YErrors
	for _, s := range ss {
		if s.Metric != metric {
			continue
		}
		if s.N > 1 {
			xys = append(xys, plotter.XY{X: float64(len(names)), Y: s.Mean})
			errs = append(errs, struct{ Low, High float64 }{s.Std, s.Std})
		}
		names = append(names, s.Policy)
		means = append(means, s.Mean)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("eval: no results for metric %q", metric)
	}
	p := plot.New()
	p.Title.Text = metric
	p.Y.Label.Text = metric + " (mean ± std over seeds)"
	bars, err := plotter.NewBarChart(means, vg.Points(30))
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	bars.Color = color.Gray{Y: 190} // light, so the error bars show inside
	p.Add(bars)
	if len(xys) > 0 {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		p.Add(eb)
	}
	p.NominalX(names...)
	return p, nil
}

// SaveResults writes prefix.md, prefix.csv and, for each metric,
// prefix-<metric>.png (the metric name reduced to letters, digits, '-' and
// '_'), each written under a temporary name and renamed. It returns the
// paths written.
func SaveResults(prefix string, rs []Result) ([]string, error) {
	var md, cs bytes.Buffer
	if err := WriteMarkdown(&md, rs); err != nil {
		return nil, err
	}
	if err := WriteCSV(&cs, rs); err != nil {
		return nil, err
	}
	files := map[string][]byte{prefix + ".md": md.Bytes(), prefix + ".csv": cs.Bytes()}
	paths := []string{prefix + ".md", prefix + ".csv"}
	ss, _ := Summarize(rs)
	_, metrics := order(ss)
	for _, m := range metrics {
		p, err := BarChart(rs, m)
		if err != nil {
			return nil, err
		}
		bars := 0
		for _, s := range ss {
			if s.Metric == m {
				bars++
			}
		}
		// float64(…) stops arm64 fusing a multiply-add: same bits as amd64.
		width := max(12*vg.Centimeter, vg.Length(4+float64(2.5*float64(bars)))*vg.Centimeter)
		w, err := p.WriterTo(width, 10*vg.Centimeter, "png")
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		path := prefix + "-" + fileSafe(m) + ".png"
		if _, dup := files[path]; dup {
			return nil, fmt.Errorf("eval: metrics %q and another map to the same file %s", m, path)
		}
		files[path] = b.Bytes()
		paths = append(paths, path)
	}
	for _, p := range paths {
		if err := wrapWrite(p, atomicfile.WriteFile(p, files[p])); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// order returns policies and metrics in order of first appearance.
func order(ss []Summary) (policies, metrics []string) {
	sp, sm := map[string]bool{}, map[string]bool{}
	for _, s := range ss {
		if !sp[s.Policy] {
			sp[s.Policy] = true
			policies = append(policies, s.Policy)
		}
		if !sm[s.Metric] {
			sm[s.Metric] = true
			metrics = append(metrics, s.Metric)
		}
	}
	return policies, metrics
}

// formatMeanStd rounds mean and std to the second significant digit of std.
func formatMeanStd(mean, std float64) string {
	if math.IsNaN(std) || std == 0 || math.IsInf(std, 0) || math.IsInf(mean, 0) || math.IsNaN(mean) {
		return formatG6(mean)
	}
	dec := 1 - int(math.Floor(math.Log10(std)))
	if dec < 0 {
		dec = 0
	}
	return strconv.FormatFloat(mean, 'f', dec, 64) + " ± " + strconv.FormatFloat(std, 'f', dec, 64)
}

func formatG6(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// formatFloat is how results.csv prints a figure (numfmt.Float: no float
// noise in means).
func formatFloat(v float64) string { return numfmt.Float(v) }

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
