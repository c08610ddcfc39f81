package experiment

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot/vg"

	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/internal/regfile"
)

// A Table holds the results of a sweep's runs.
type Table struct {
	Sweep  Sweep  // with Features filled in
	Metric string // the FID's name, e.g. "FID (LeNet-MNIST)"
	// Columns are the figures of a model with an Evaluator, which the
	// table shows instead of the FID; nil for generators.
	Columns []string
	// Extra are the columns of the set metrics measured beside the FID
	// (Sweep.Metrics), after the others; nil for none.
	Extra   []string
	Runs    []Run     // policy by policy, seed by seed
	Results []*Result // Results[i] is Runs[i]'s; nil if it is not finished

	channels int // of the images: 1 writes grids.png in gray; 0 tells from its pixels

	// base caches the Baseliner rows: every table file shows them, a
	// sweep rewrites its files after each run, and they cost seconds
	// (superres.go loads and resizes the test photographs).
	baseMu sync.Mutex
	base   *baseRows
}

// baseRows are the Baseliner rows of the sweep that key describes.
type baseRows struct {
	key  string
	rows []eval.Result
	err  error
}

// baselines returns the Baseliner rows of the table's sweep, made once
// for as long as the fields they depend on keep their values.
func (t *Table) baselines() ([]eval.Result, error) {
	s := &t.Sweep
	// The rows depend only on the model, its options and the data set;
	// Sweep is a public field, which may be set between calls.
	key := fmt.Sprintf("%q %q %q", s.Model, s.Dataset, s.Options) // fmt sorts the map
	t.baseMu.Lock()
	defer t.baseMu.Unlock()
	if t.base == nil || t.base.key != key {
		rows, err := baselines(s)
		t.base = &baseRows{key: key, rows: rows, err: err}
	}
	// Copies: the caller may change what Summary returns.
	rows := make([]eval.Result, len(t.base.rows))
	for i, r := range t.base.rows {
		r.Values = slices.Clone(r.Values)
		rows[i] = r
	}
	return rows, t.base.err
}

// errNoResults is returned when a table has no finished run to show.
var errNoResults = errors.New("experiment: no finished runs")

// metrics returns the table's columns: the FID (or the Evaluator's
// figures) first, then the training columns; after them, the columns a
// result may lack (optional).
func (t *Table) metrics() []string {
	first := []string{t.Metric}
	if t.Columns != nil {
		first = t.Columns
	}
	ms := append(slices.Clip(first), "D loss", "G loss", "skipped updates", "s/step")
	return append(ms, t.Extra...)
}

// optional is the number of columns of metrics() before which every
// result has a figure: a result without a figure of a later column
// (results.json written before it was measured) leaves it out.
func (t *Table) optional() int {
	if t.Columns != nil {
		return len(t.Columns) + 4
	}
	return 5
}

// tested returns the columns the table tests against the baseline: its
// figures, the first of them in results.md.
func (t *Table) tested() []string {
	first := []string{t.Metric}
	if t.Columns != nil {
		first = t.Columns
	}
	return append(slices.Clip(first), t.Extra...)
}

// significance says how the table's rows are tested.
func (t *Table) significance() eval.Significance {
	return eval.Significance{Baseline: t.Sweep.Baseline, Alpha: t.Sweep.Alpha, Seed: t.Sweep.EvalSeed, Metrics: t.tested()}
}

// seRange returns the smallest and largest FID sampling error of the
// table's measured runs; ok is false if none has one.
func (t *Table) seRange() (lo, hi float64, ok bool) {
	if t.Columns != nil {
		return 0, 0, false
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, res := range t.Results {
		if res != nil && res.FIDStdErr != 0 {
			lo, hi, ok = min(lo, res.FIDStdErr), max(hi, res.FIDStdErr), true
		}
	}
	return lo, hi, ok
}

// figures returns the values of a result in the order of metrics(), NaN
// for an optional figure the result lacks.
func (t *Table) figures(res *Result) []float64 {
	first := []float64{res.FID}
	if t.Columns != nil {
		first = first[:0]
		for _, c := range t.Columns {
			first = append(first, res.Figures[c])
		}
	}
	vs := append(first, res.DLoss, res.GLoss, float64(res.SkippedD+res.SkippedG), res.SPerStep)
	for _, c := range t.Extra {
		v, ok := res.Extra[c]
		if !ok {
			v = math.NaN()
		}
		vs = append(vs, v)
	}
	return vs
}

// headline is a result's figures for a log line, e.g. "FID (LeNet-MNIST)
// 12.34".
func (t *Table) headline(res *Result) string {
	if t.Columns == nil {
		return fmt.Sprintf("%s %.4g", t.Metric, res.FID)
	}
	parts := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		parts[i] = fmt.Sprintf("%s %.4g", c, res.Figures[c])
	}
	return strings.Join(parts, ", ")
}

// Summary returns the results policy by policy, one eval.Result per
// metric of the table (FID or the Evaluator's figures, D loss, G loss,
// skipped updates, s/step),
// each with a value per finished run.
func (t *Table) Summary() []eval.Result {
	var rs []eval.Result
	idx := map[[2]string]int{}
	for i, res := range t.Results {
		if res == nil || res.Status == gan.StatusDiverged && res.GoodStep == 0 { // no figures
			continue
		}
		r := t.Runs[i]
		vals := t.figures(res)
		policy := r.Policy
		if res.Status != "" { // an unhealthy run: its own row, marked
			policy += " (" + res.Status + ": last healthy checkpoint)"
		}
		for k, m := range t.metrics() {
			if k >= t.optional() && math.IsNaN(vals[k]) {
				continue
			}
			key := [2]string{policy, m}
			j, ok := idx[key]
			if !ok {
				j = len(rs)
				idx[key] = j
				rs = append(rs, eval.Result{Policy: policy, Metric: m})
			}
			rs[j].Values = append(rs[j].Values, vals[k])
		}
	}
	if len(rs) > 0 {
		// Rows no run makes (superres.go). They fail only if the test
		// images do, which the runs' own figures then report.
		if b, err := t.baselines(); err == nil {
			rs = append(b, rs...)
		}
	}
	return rs
}

// WriteMarkdown writes results.md: a line saying what was measured, the
// table of means ± std over seeds, and a line explaining the columns.
func (t *Table) WriteMarkdown(w io.Writer) error {
	rs := t.Summary()
	if len(rs) == 0 {
		return errNoResults
	}
	s := t.Sweep
	var md bytes.Buffer
	model := strings.ToUpper(s.Model)
	if len(s.Options) > 0 {
		model += " (" + s.optionList() + ")"
	}
	if ev := evaluatorOf(s.Model); ev != nil && t.Columns != nil {
		fmt.Fprintf(&md, "%s on %s, %d steps of batch %d per run; %s\n\n", model, s.Dataset, s.Steps, s.Batch, ev.Describe(&s))
	} else {
		fmt.Fprintf(&md, "%s on %s, %d steps of batch %d per run; %s of %d generated images against %d test images.\n\n",
			model, s.Dataset, s.Steps, s.Batch, t.Metric, s.N, s.N)
	}
	if err := eval.WriteMarkdownSignificance(&md, rs, t.significance()); err != nil {
		return err
	}
	fmt.Fprintf(&md, "D and G loss: means over each run's last 100 steps; skipped updates: D and G updates skipped for overflow; s/step: mean wall time of a training step.\n")
	if lo, hi, ok := t.seRange(); ok {
		fmt.Fprintf(&md, "FID sampling error of the runs (runs.csv fid_se: the standard deviation of a run's FID over %d bootstrap resamples of its generated images, the reference images fixed): %s to %s, how far an FID would move measured on other images of the same generator.\n",
			FIDResamples, strconv.FormatFloat(lo, 'g', 3, 64), strconv.FormatFloat(hi, 'g', 3, 64))
	}
	for i, res := range t.Results {
		if res != nil && res.Status != "" {
			fmt.Fprintf(&md, "\n%s seed %d ended %s; its row is measured at step %d, its last healthy checkpoint (0: none, not in the table).\n",
				t.Runs[i].Policy, t.Runs[i].Seed, res.Status, res.GoodStep)
		}
	}
	_, err := w.Write(md.Bytes())
	return err
}

// WriteCSV writes results.csv: the summary (see eval.WriteCSV).
func (t *Table) WriteCSV(w io.Writer) error {
	rs := t.Summary()
	if len(rs) == 0 {
		return errNoResults
	}
	return eval.WriteCSVSignificance(w, rs, t.significance())
}

// WriteRunsCSV writes runs.csv: one line per finished run.
func (t *Table) WriteRunsCSV(w io.Writer) error {
	head := []string{"metric", "fid"}
	if t.Columns != nil {
		head = t.Columns
	}
	var tail []string // after s_per_step, so that parsers by position keep working
	if t.Columns == nil {
		tail = append([]string{"fid_se"}, t.Extra...)
	}
	lines := [][]string{append(append(append([]string{"policy", "seed", "steps"}, head...), "d_loss", "g_loss", "skipped_d", "skipped_g", "status", "good_step", "s_per_step"), tail...)}
	g := numfmt.Float // no float noise in the means
	for i, res := range t.Results {
		if res == nil {
			continue
		}
		r := t.Runs[i]
		line := []string{r.Policy, strconv.FormatUint(r.Seed, 10), strconv.Itoa(res.Steps)}
		if t.Columns == nil {
			line = append(line, res.Metric, g(res.FID))
		} else {
			for _, c := range t.Columns {
				line = append(line, g(res.Figures[c]))
			}
		}
		status, good := gan.StatusOK, res.Steps
		if res.Status != "" {
			status, good = res.Status, res.GoodStep
		}
		line = append(line, g(res.DLoss), g(res.GLoss), strconv.Itoa(res.SkippedD), strconv.Itoa(res.SkippedG), status, strconv.Itoa(good), g(res.SPerStep))
		if t.Columns == nil {
			se := ""
			if res.FIDStdErr != 0 {
				se = g(res.FIDStdErr)
			}
			line = append(line, se)
			for _, c := range t.Extra {
				v := ""
				if x, ok := res.Extra[c]; ok {
					v = g(x)
				}
				line = append(line, v)
			}
		}
		lines = append(lines, line)
	}
	cw := csv.NewWriter(w)
	cw.WriteAll(lines)
	return cw.Error()
}

// WriteChart writes fid.png: a bar chart of the FID (or the Evaluator's
// first figure) per policy with error bars of ± one standard deviation
// over seeds.
func (t *Table) WriteChart(w io.Writer) error {
	rs := t.Summary()
	if len(rs) == 0 {
		return errNoResults
	}
	p, err := eval.BarChart(rs, t.metrics()[0])
	if err != nil {
		return err
	}
	pols := 0
	for _, r := range rs {
		if r.Metric == t.metrics()[0] {
			pols++
		}
	}
	wt, err := p.WriterTo(max(12*vg.Centimeter, vg.Length(4+float64(2.5*float64(pols)))*vg.Centimeter), 10*vg.Centimeter, "png")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// writeFiles writes results.md, results.csv, runs.csv, fid.png and the
// grids into the sweep's folder, if any run is finished.
func (t *Table) writeFiles() error {
	if len(t.Summary()) == 0 {
		return nil
	}
	out := t.Sweep.Out
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"results.md", t.WriteMarkdown}, {"results.csv", t.WriteCSV}, {"runs.csv", t.WriteRunsCSV}, {"fid.png", t.WriteChart},
	} {
		// Made in memory first: a failure leaves no temporary file behind.
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(out, f.name), b.Bytes()); err != nil {
			return err
		}
	}
	return t.writeGrids()
}

// writeGrids copies the first seed's grid of each policy to grids/ and
// writes them all side by side, labelled, to grids.png.
func (t *Table) writeGrids() error {
	out := t.Sweep.Out
	var tiles []gan.Tile
	for i, res := range t.Results {
		r := t.Runs[i]
		if res == nil || r.Seed != t.Sweep.FirstSeed {
			continue
		}
		path := filepath.Join(r.Dir, "samples.png")
		data, err := regfile.ReadFile(path, 256<<20) // a grid this sweep wrote, but the folder is shared
		if err != nil {
			return err
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := os.MkdirAll(filepath.Join(out, "grids"), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(out, "grids", r.Policy+".png"), data); err != nil {
			return err
		}
		tiles = append(tiles, gan.Tile{Image: img, Label: r.Policy})
	}
	if len(tiles) == 0 {
		return nil
	}
	m := gan.Montage{Gap: 8, Band: 18, Baseline: 5}
	rgba := image.NewRGBA(m.Bounds(tiles))
	m.Draw(rgba, tiles)
	var all image.Image = rgba
	if t.channels == 1 || t.channels == 0 && isGray(all) { // a third of the file
		g := image.NewGray(all.Bounds())
		draw.Draw(g, g.Bounds(), all, image.Point{}, draw.Src)
		all = g
	}
	return atomicfile.Write(filepath.Join(out, "grids.png"), func(w io.Writer) error { return png.Encode(w, all) })
}

// isGray reports whether every pixel of img is gray, so that writing it
// as a gray image loses nothing.
func isGray(img image.Image) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if r != g || g != bl || a != 0xffff {
				return false
			}
		}
	}
	return true
}
