package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/vg"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

// compareFlags are the flags of positgan compare.
type compareFlags struct {
	model, dataset, policies, out, features string
	steps, seeds, n, batch                  int
	firstSeed, evalSeed                     uint64
	ckptEvery, logEvery                     int
	lr                                      float64
}

func compareCmd() *command {
	return &command{name: "compare", usage: "[flags]",
		summary: "train a GAN in several policies over several seeds and tabulate FID\n\n" +
			"For every policy of --policies and every seed, trains --model on --dataset for --steps steps\n" +
			"into --out/<policy>/seed<k>/ (as positgan train does), then measures the FID of --n generated\n" +
			"images (fixed seeded noise; for CGAN, labels cycling through the classes) against --n images\n" +
			"of the data set's test split, with the feature network --features. The FID is named after\n" +
			"that network, e.g. FID (LeNet-MNIST): it is not the Inception FID of the literature.\n" +
			"Writes --out/results.md and results.csv (mean ± sample std over seeds), runs.csv (one line\n" +
			"per run), fid.png (bar chart with error bars) and grids/<policy>.png (the first seed's\n" +
			"sample grid; grids.png has them side by side). The table is rewritten after every run; running the same command again\n" +
			"skips finished runs and resumes a half-trained one from its checkpoint, bit for bit.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			f := &compareFlags{}
			fs.StringVar(&f.model, "model", models.CGAN, "architecture: cgan or dcgan")
			fs.StringVar(&f.dataset, "dataset", "mnist", "mnist, fashion-mnist, or an IDX directory with a test split")
			fs.StringVar(&f.policies, "policies", "fp32,fp16,posit8+,posit8,fp8-ibm", "quantization policies, comma-separated: presets or .toml files")
			fs.StringVar(&f.out, "out", filepath.Join("out", "compare"), "output folder")
			fs.StringVar(&f.features, "features", "", "feature network of the FID: "+featnet.Specs+" (default: lenet-mnist for mnist, lenet-fashion for fashion-mnist)")
			fs.IntVar(&f.steps, "steps", defaultTrainSteps, "training steps per run")
			fs.IntVar(&f.seeds, "seeds", 3, "runs per policy, with seeds --seed, --seed+1, ...")
			fs.Uint64Var(&f.firstSeed, "seed", 1, "first training seed")
			fs.IntVar(&f.n, "n", 2000, "images per FID: generated ones, and real ones drawn from the test split")
			fs.Uint64Var(&f.evalSeed, "eval-seed", 1, "seed of the FID's noise and of the real-image draw (the same for every run)")
			fs.IntVar(&f.batch, "batch", 64, "batch size")
			fs.Float64Var(&f.lr, "lr", 2e-4, "Adam learning rate")
			fs.IntVar(&f.ckptEvery, "checkpoint-every", 250, "rewrite each run's checkpoint every N steps (0: only at the end)")
			fs.IntVar(&f.logEvery, "log-every", 100, "print a progress line every N steps when not on a terminal")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q (compare takes only flags)", args[0])
				}
				return runCompare(f, io)
			}
		},
	}
}

// compareRun is one (policy, seed) run of a comparison.
type compareRun struct {
	policy string // label
	pol    *quant.Policy
	seed   uint64
	dir    string
}

func (r *compareRun) String() string { return fmt.Sprintf("%s seed %d", r.policy, r.seed) }

// runResult is what a finished run records in its result.json: the
// inputs its FID depends on, so a changed flag invalidates it.
type runResult struct {
	Policy   string  `json:"policy"`
	Seed     uint64  `json:"seed"`
	Steps    int     `json:"steps"`
	Dataset  string  `json:"dataset"`
	Features string  `json:"features"`
	N        int     `json:"n"`
	EvalSeed uint64  `json:"eval_seed"`
	Metric   string  `json:"metric"`
	FID      float64 `json:"fid"`
	DLoss    float64 `json:"d_loss"` // mean over the last 100 steps
	GLoss    float64 `json:"g_loss"`
	SkippedD int     `json:"skipped_d"` // updates skipped over the whole run
	SkippedG int     `json:"skipped_g"`
	SPerStep float64 `json:"s_per_step"` // mean wall time of a step
}

const compareResultFile = "result.json"

func runCompare(f *compareFlags, io stdio) error {
	switch {
	case f.steps <= 0:
		return usagef("--steps %d: must be positive", f.steps)
	case f.seeds <= 0:
		return usagef("--seeds %d: must be positive", f.seeds)
	case f.n < 2:
		return usagef("--n %d: an FID needs at least 2 images", f.n)
	case f.batch <= 0:
		return usagef("--batch %d: must be positive", f.batch)
	case !(f.lr > 0):
		return usagef("--lr %v: must be positive", f.lr)
	case f.ckptEvery < 0 || f.logEvery < 0:
		return usagef("--checkpoint-every and --log-every must not be negative")
	case f.model != models.CGAN && f.model != models.DCGAN:
		return usagef("--model %q: want cgan or dcgan", f.model)
	case f.out == "":
		return usagef("--out: empty folder name")
	}
	if f.features == "" {
		switch f.dataset {
		case "mnist":
			f.features = "lenet-mnist"
		case "fashion-mnist":
			f.features = "lenet-fashion"
		default:
			return usagef("--features: no default for --dataset %s; name a feature network (%s)", f.dataset, featnet.Specs)
		}
	}
	runs, err := compareRuns(f)
	if err != nil {
		return err
	}
	ext, err := featnet.Load(f.features)
	if err != nil {
		return usageError{fmt.Errorf("--features: %w", err)}
	}
	metric := featnet.MetricName(ext)

	tf := &trainFlags{model: f.model, dataset: f.dataset, batch: f.batch}
	ds, err := loadTrainData(tf)
	if err != nil {
		return usageError{fmt.Errorf("--dataset: %w", err)}
	}
	cfg, err := trainConfig(tf, ds)
	if err != nil {
		return err
	}
	if ds.Len() < f.batch {
		return usagef("--batch %d: the data set has only %d images", f.batch, ds.Len())
	}
	test, err := datasets.Load(f.dataset, datasets.Options{Split: datasets.Test, Height: cfg.Height, Width: cfg.Width, Channels: cfg.Channels})
	if err != nil {
		return usageError{fmt.Errorf("--dataset %s: the FID's real images come from the test split: %w", f.dataset, err)}
	}
	if test.Len() < f.n {
		return usagef("--n %d: the test split of %s has only %d images", f.n, f.dataset, test.Len())
	}
	if err := ensureWritable(f.out); err != nil {
		return err
	}
	// Existing checkpoints must belong to this comparison.
	for _, r := range runs {
		if err := checkCompareCheckpoint(f, r, cfg); err != nil {
			return err
		}
	}

	ref, err := compareReference(f, test, ext, io)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan struct{})
	defer close(done) // runs before stop: the watcher returns quietly
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			stop() // a second Ctrl-C kills at once
			fmt.Fprintln(io.err, "\ninterrupted: finishing the step and writing the checkpoint (Ctrl-C again to abort)")
		}
	}()
	start := time.Now()
	trained := 0 // runs this invocation trained or evaluated, for the ETA
	results := make([]*runResult, len(runs))
	left := len(runs) // runs to train or evaluate
	for i, r := range runs {
		if res, ok := readRunResult(f, r, metric); ok {
			results[i] = res
			left--
			fmt.Fprintf(io.err, "[%d/%d] %s: done (%s %.4g)\n", i+1, len(runs), r, metric, res.FID)
		}
	}
	for i, r := range runs {
		if results[i] != nil {
			continue
		}
		eta := ""
		if trained > 0 {
			eta = fmt.Sprintf(", comparison eta %s", (time.Since(start) / time.Duration(trained) * time.Duration(left-trained)).Round(time.Second))
		}
		fmt.Fprintf(io.err, "[%d/%d] %s%s\n", i+1, len(runs), r, eta)
		res, err := compareOne(ctx, f, r, cfg, ds, ext, ref, io)
		if errors.Is(err, gan.ErrInterrupted) {
			return fmt.Errorf("interrupted during %s (checkpoint written): run the same command again to continue", r)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", r, err)
		}
		trained++
		results[i] = res
		fmt.Fprintf(io.err, "[%d/%d] %s: %s %.4g, %.3f s/step\n", i+1, len(runs), r, metric, res.FID, res.SPerStep)
		if err := writeCompareTable(f, runs, results, metric, cfg); err != nil {
			return err
		}
	}
	if err := writeCompareTable(f, runs, results, metric, cfg); err != nil {
		return err
	}
	md, err := os.ReadFile(filepath.Join(f.out, "results.md"))
	if err != nil {
		return err
	}
	_, err = io.out.Write(md)
	return err
}

// compareRuns parses the policies and lays out the runs, policy by
// policy.
func compareRuns(f *compareFlags) ([]*compareRun, error) {
	var runs []*compareRun
	seen := map[string]bool{}
	for _, name := range strings.Split(f.policies, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, usagef("--policies %q: empty policy name", f.policies)
		}
		p, err := quant.ParsePolicy(name)
		if err != nil {
			return nil, usageError{fmt.Errorf("--policies %s: %w", name, err)}
		}
		label := runLabel(name)
		if seen[label] {
			return nil, usagef("--policies: %s given twice", label)
		}
		seen[label] = true
		for k := 0; k < f.seeds; k++ {
			seed := f.firstSeed + uint64(k)
			runs = append(runs, &compareRun{policy: label, pol: p, seed: seed,
				dir: filepath.Join(f.out, label, fmt.Sprintf("seed%d", seed))})
		}
	}
	return runs, nil
}

// checkCompareCheckpoint checks that a run's existing checkpoint, if any,
// is a run of this comparison that --steps can continue.
func checkCompareCheckpoint(f *compareFlags, r *compareRun, cfg models.Config) error {
	path := filepath.Join(r.dir, "checkpoint.safetensors")
	c, err := ckpt.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	s, err := gan.ReadState(c)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	o := s.Options
	var bad []string
	if o.Config.String() != cfg.String() {
		bad = append(bad, fmt.Sprintf("model %s (now %s)", o.Config, cfg))
	}
	if o.Seed != r.seed {
		bad = append(bad, fmt.Sprintf("seed %d (now %d)", o.Seed, r.seed))
	}
	if o.Batch != f.batch {
		bad = append(bad, fmt.Sprintf("batch %d (now %d)", o.Batch, f.batch))
	}
	if o.LR != f.lr {
		bad = append(bad, fmt.Sprintf("lr %g (now %g)", o.LR, f.lr))
	}
	if d := c.Meta["positgan.dataset"]; d != "" && d != f.dataset {
		bad = append(bad, fmt.Sprintf("dataset %s (now %s)", d, f.dataset))
	}
	if o.Policy != nil && o.Policy.String() != r.pol.String() {
		bad = append(bad, "a different policy "+r.policy)
	}
	if s.Step > f.steps {
		bad = append(bad, fmt.Sprintf("step %d, past --steps %d", s.Step, f.steps))
	}
	if len(bad) > 0 {
		return usagef("%s was trained with %s: use another --out", path, strings.Join(bad, ", "))
	}
	return nil
}

// compareReference returns the feature statistics of --n test images,
// cached in a file whose name says how they were made.
func compareReference(f *compareFlags, test datasets.Dataset, ext featnet.Extractor, io stdio) (eval.Stats, error) {
	path := filepath.Join(f.out, fmt.Sprintf("reference_%s_n%d_seed%d.npz", fileSafeName(f.features), f.n, f.evalSeed))
	if st, err := eval.ReadStats(path); err == nil && st.Dim() == ext.Dim() {
		return st, nil
	}
	fmt.Fprintf(io.err, "reference: features (%s) of %d test images of %s -> %s\n", ext.Name(), f.n, f.dataset, path)
	sub, err := datasets.Sample(test, f.n, f.evalSeed)
	if err != nil {
		return eval.Stats{}, err
	}
	x, err := featnet.FeaturesOf(ext, sub, 100)
	if err != nil {
		return eval.Stats{}, fmt.Errorf("reference: %w", err)
	}
	st, err := eval.StatsOf(x)
	if err != nil {
		return eval.Stats{}, fmt.Errorf("reference: %w", err)
	}
	if err := eval.WriteStats(path, st); err != nil {
		return eval.Stats{}, err
	}
	return st, nil
}

func fileSafeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '+':
			return r
		}
		return '_'
	}, s)
}

// readRunResult returns a run's recorded result if it was measured with
// the flags given now.
func readRunResult(f *compareFlags, r *compareRun, metric string) (*runResult, bool) {
	data, err := os.ReadFile(filepath.Join(r.dir, compareResultFile))
	if err != nil {
		return nil, false
	}
	var res runResult
	if json.Unmarshal(data, &res) != nil {
		return nil, false
	}
	ok := res.Policy == r.policy && res.Seed == r.seed && res.Steps == f.steps && res.Dataset == f.dataset &&
		res.Features == f.features && res.N == f.n && res.EvalSeed == f.evalSeed && res.Metric == metric
	return &res, ok
}

// compareOne trains one run to --steps (from scratch, or on from its
// checkpoint), measures its FID and records the result.
func compareOne(ctx context.Context, f *compareFlags, r *compareRun, cfg models.Config, ds *datasets.Set,
	ext featnet.Extractor, ref eval.Stats, io stdio) (*runResult, error) {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	ckPath := filepath.Join(r.dir, "checkpoint.safetensors")
	var t *gan.Trainer
	c, err := ckpt.Load(ckPath)
	switch {
	case err == nil:
		if t, err = gan.Resume(c, ds); err != nil {
			return nil, err
		}
	case errors.Is(err, os.ErrNotExist):
		if t, err = gan.NewTrainer(ds, gan.Options{Config: cfg, Policy: r.pol, Batch: f.batch, Seed: r.seed, LR: f.lr}); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if t.Step() < f.steps {
		if t.Step() > 0 {
			fmt.Fprintf(io.err, "%s: resuming at step %d of %d\n", r, t.Step(), f.steps)
		}
		_, err := t.Run(ctx, gan.RunOptions{Dir: r.dir, Steps: f.steps, CheckpointEvery: f.ckptEvery,
			Meta:   map[string]string{"positgan.dataset": f.dataset},
			OnStep: progressReporter(io, r.String(), t.Step(), f.steps, f.logEvery)})
		if err != nil {
			return nil, err
		}
	}
	res := &runResult{Policy: r.policy, Seed: r.seed, Steps: f.steps, Dataset: f.dataset, Features: f.features,
		N: f.n, EvalSeed: f.evalSeed, Metric: featnet.MetricName(ext)}
	if err := readRunLog(res, filepath.Join(r.dir, "log.csv"), f.steps); err != nil {
		return nil, err
	}
	gen, err := gan.GenerateSet(t.Model(), f.n, f.evalSeed, 100)
	if err != nil {
		return nil, err
	}
	x, err := featnet.FeaturesOf(ext, gen, 100)
	if err != nil {
		return nil, err
	}
	st, err := eval.StatsOf(x)
	if err != nil {
		return nil, err
	}
	if res.FID, err = eval.FrechetDistance(st, ref); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(r.dir, compareResultFile), append(js, '\n')); err != nil {
		return nil, err
	}
	return res, nil
}

// readRunLog fills the training figures of res from a run's log.csv:
// mean losses over the last 100 steps, skipped updates and the mean step
// time over the whole run.
func readRunLog(res *runResult, path string, steps int) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 {
		return fmt.Errorf("%s: no steps logged", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"step", "d_loss", "g_loss", "skipped_d", "skipped_g", "step_seconds"} {
		if _, ok := col[h]; !ok {
			return fmt.Errorf("%s: no column %s", path, h)
		}
	}
	rows = rows[1:]
	if len(rows) != steps {
		return fmt.Errorf("%s: %d steps logged, want %d", path, len(rows), steps)
	}
	num := func(row []string, h string) (float64, error) {
		v, err := strconv.ParseFloat(row[col[h]], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: column %s: %w", path, h, err)
		}
		return v, nil
	}
	var secs float64
	for i, row := range rows {
		vals := map[string]float64{}
		for _, h := range []string{"d_loss", "g_loss", "skipped_d", "skipped_g", "step_seconds"} {
			if vals[h], err = num(row, h); err != nil {
				return err
			}
		}
		secs += vals["step_seconds"]
		res.SkippedD += int(vals["skipped_d"])
		res.SkippedG += int(vals["skipped_g"])
		if last := min(100, len(rows)); i >= len(rows)-last {
			res.DLoss += vals["d_loss"] / float64(last)
			res.GLoss += vals["g_loss"] / float64(last)
		}
	}
	res.SPerStep = secs / float64(len(rows))
	return nil
}

// writeCompareTable writes results.md, results.csv, runs.csv, fid.png and
// the grids from the runs finished so far.
func writeCompareTable(f *compareFlags, runs []*compareRun, results []*runResult, metric string, cfg models.Config) error {
	metrics := []string{metric, "D loss", "G loss", "skipped updates", "s/step"}
	var rs []eval.Result
	idx := map[[2]string]int{}
	var lines [][]string
	lines = append(lines, []string{"policy", "seed", "steps", "metric", "fid", "d_loss", "g_loss", "skipped_d", "skipped_g", "s_per_step"})
	for i, res := range results {
		if res == nil {
			continue
		}
		r := runs[i]
		vals := []float64{res.FID, res.DLoss, res.GLoss, float64(res.SkippedD + res.SkippedG), res.SPerStep}
		for k, m := range metrics {
			key := [2]string{r.policy, m}
			j, ok := idx[key]
			if !ok {
				j = len(rs)
				idx[key] = j
				rs = append(rs, eval.Result{Policy: r.policy, Metric: m})
			}
			rs[j].Values = append(rs[j].Values, vals[k])
		}
		g := strconv.FormatFloat
		lines = append(lines, []string{r.policy, strconv.FormatUint(r.seed, 10), strconv.Itoa(res.Steps), res.Metric,
			g(res.FID, 'g', -1, 64), g(res.DLoss, 'g', -1, 64), g(res.GLoss, 'g', -1, 64),
			strconv.Itoa(res.SkippedD), strconv.Itoa(res.SkippedG), g(res.SPerStep, 'g', -1, 64)})
	}
	if len(rs) == 0 {
		return nil
	}
	var md, cs, runsCSV bytes.Buffer
	fmt.Fprintf(&md, "%s on %s, %d steps of batch %d per run; %s of %d generated images against %d test images.\n\n",
		strings.ToUpper(cfg.Arch), f.dataset, f.steps, f.batch, metric, f.n, f.n)
	if err := eval.WriteMarkdown(&md, rs); err != nil {
		return err
	}
	fmt.Fprintf(&md, "D and G loss: means over each run's last 100 steps; skipped updates: D and G updates skipped for overflow; s/step: mean wall time of a training step.\n")
	if err := eval.WriteCSV(&cs, rs); err != nil {
		return err
	}
	w := csv.NewWriter(&runsCSV)
	w.WriteAll(lines)
	if err := w.Error(); err != nil {
		return err
	}
	p, err := eval.BarChart(rs, metric)
	if err != nil {
		return err
	}
	pols := len(rs) / len(metrics)
	wt, err := p.WriterTo(max(12*vg.Centimeter, vg.Length(4+2.5*float64(pols))*vg.Centimeter), 10*vg.Centimeter, "png")
	if err != nil {
		return err
	}
	var chart bytes.Buffer
	if _, err := wt.WriteTo(&chart); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"results.md": md.Bytes(), "results.csv": cs.Bytes(),
		"runs.csv": runsCSV.Bytes(), "fid.png": chart.Bytes()} {
		if err := atomicfile.WriteFile(filepath.Join(f.out, name), data); err != nil {
			return err
		}
	}
	// The first seed's grid of each policy in grids/, and all of them
	// side by side, labelled, in grids.png.
	var names []string
	var grids []image.Image
	for i, res := range results {
		r := runs[i]
		if res == nil || r.seed != f.firstSeed {
			continue
		}
		data, err := os.ReadFile(filepath.Join(r.dir, "samples.png"))
		if err != nil {
			return err
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(r.dir, "samples.png"), err)
		}
		if err := os.MkdirAll(filepath.Join(f.out, "grids"), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(f.out, "grids", r.policy+".png"), data); err != nil {
			return err
		}
		names = append(names, r.policy)
		grids = append(grids, img)
	}
	if len(grids) == 0 {
		return nil
	}
	var all image.Image = sideBySide(names, grids)
	if cfg.Channels == 1 { // a third of the file
		g := image.NewGray(all.Bounds())
		draw.Draw(g, g.Bounds(), all, image.Point{}, draw.Src)
		all = g
	}
	return atomicfile.Write(filepath.Join(f.out, "grids.png"), func(w io.Writer) error { return png.Encode(w, all) })
}

// sideBySide places the images left to right, each under its name.
func sideBySide(names []string, imgs []image.Image) image.Image {
	const gap, label = 8, 18
	w, h := gap, 0
	for _, im := range imgs {
		w += im.Bounds().Dx() + gap
		h = max(h, im.Bounds().Dy())
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, label+h+gap))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	x := gap
	for i, im := range imgs {
		b := im.Bounds()
		draw.Draw(dst, image.Rect(x, label, x+b.Dx(), label+b.Dy()), im, b.Min, draw.Src)
		d := font.Drawer{Dst: dst, Src: image.Black, Face: basicfont.Face7x13}
		d.Dot = fixed.P(x+(b.Dx()-d.MeasureString(names[i]).Round())/2, label-5)
		d.DrawString(names[i])
		x += b.Dx() + gap
	}
	return dst
}
