package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/models"
)

// An extraMetric is a set metric a sweep measures beside the FID
// (Sweep.Metrics), from the same features.
type extraMetric struct {
	name    string         // in eval's registry, or ClassAccuracyMetric
	m       eval.SetMetric // nil for ClassAccuracyMetric, measured apart (measureClassAccuracy)
	columns []string       // the table columns of its figures
}

// extraMetrics returns the metrics of s.Metrics other than the FID, each
// once, with their columns named after the feature network called
// features: a FigureNamer's figures as "precision (LeNet-MNIST)", any
// other metric's first figure by its Label, "KID (LeNet-MNIST)" (KID's
// second figure, its standard deviation over subsets, is left out: the
// table's spread is over seeds).
func (s *Sweep) extraMetrics(features string) ([]extraMetric, error) {
	var ms []extraMetric
	seen := map[string]bool{"fid": true}
	for _, name := range s.Metrics {
		name = strings.TrimSpace(name)
		if seen[name] {
			continue
		}
		seen[name] = true
		if name == ClassAccuracyMetric {
			ms = append(ms, extraMetric{name: name, columns: []string{classAccuracyColumn(features)}})
			continue
		}
		m, err := eval.LookupSet(name)
		if err != nil {
			return nil, &ConfigError{Field: "Metrics", Value: name, Err: err}
		}
		e := extraMetric{name: name, m: m}
		if fn, ok := m.(eval.FigureNamer); ok {
			for _, f := range fn.FigureNames() {
				e.columns = append(e.columns, f+" ("+features+")")
			}
		} else {
			e.columns = []string{m.Label(features)}
		}
		ms = append(ms, e)
	}
	return ms, nil
}

// checkSignificance checks the fields of s the table's tests read, and
// that Metrics name set metrics a generator's sweep can measure.
func (s *Sweep) checkSignificance() error {
	if !(s.Alpha == 0 || s.Alpha > 0 && s.Alpha < 1) {
		return configErrorf("Alpha", fmt.Sprint(s.Alpha), "a significance level must lie between 0 and 1")
	}
	if _, err := s.extraMetrics(""); err != nil {
		return err
	}
	if evaluatorOf(s.Model) != nil && slices.ContainsFunc(s.Metrics, func(m string) bool { return strings.TrimSpace(m) != "fid" }) {
		return configErrorf("Metrics", strings.Join(s.Metrics, ","), "%s is measured by its own figures, not by set metrics of generated images", s.Model)
	}
	if slices.ContainsFunc(s.Metrics, func(m string) bool { return strings.TrimSpace(m) == ClassAccuracyMetric }) {
		if spec, err := models.Lookup(s.Model); err == nil && !spec.Labels {
			return configErrorf("Metrics", ClassAccuracyMetric, "%s is unconditional: only a conditional model draws the class it is asked for", s.Model)
		}
		if s.Features != "" && !isClassifier(s.Features) {
			return configErrorf("Features", s.Features, "%s needs a LeNet classifier: lenet-mnist, lenet-fashion or lenet:FILE", ClassAccuracyMetric)
		}
	}
	return nil
}

// extraColumns returns the columns of ms, in order.
func extraColumns(ms []extraMetric) []string {
	var cs []string
	for _, m := range ms {
		cs = append(cs, m.columns...)
	}
	return cs
}

// missingExtra reports whether res lacks a figure of ms.
func missingExtra(res *Result, ms []extraMetric) bool {
	for _, m := range ms {
		for _, c := range m.columns {
			if _, ok := res.Extra[c]; !ok {
				return true
			}
		}
	}
	return false
}

// measureExtra records in res the figures of ms that it lacks, of the
// generated set gen against the reference ref.
func measureExtra(res *Result, ref, gen eval.Features, ms []extraMetric) error {
	for _, m := range ms {
		if m.m == nil {
			continue
		}
		have := true
		for _, c := range m.columns {
			_, ok := res.Extra[c]
			have = have && ok
		}
		if have {
			continue
		}
		figs, err := m.m.CompareSets(ref, gen, eval.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if len(figs) < len(m.columns) {
			return fmt.Errorf("%s: %d figures for %d columns", m.name, len(figs), len(m.columns))
		}
		if res.Extra == nil {
			res.Extra = map[string]float64{}
		}
		for i, c := range m.columns {
			if math.IsNaN(figs[i]) {
				return fmt.Errorf("%s: %s is NaN", m.name, c)
			}
			res.Extra[c] = figs[i]
		}
	}
	return nil
}

// needsRows reports whether a metric of ms needs every image's features.
func needsRows(ms []extraMetric) bool {
	return slices.ContainsFunc(ms, func(m extraMetric) bool { return m.m != nil && m.m.NeedsRows() })
}
