package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// A Sweep says what Compare trains and measures. Every field but Features,
// CheckpointEvery, Options, Log and Progress must be set.
type Sweep struct {
	// Model is a registered model that makes images from noise ("cgan",
	// "dcgan"), measured by the FID of its images, or one with an
	// Evaluator ("cyclegan"), measured by figures of its own.
	Model   string
	Dataset string // mnist, fashion-mnist, or an IDX directory with a test split
	// Policies are quantization presets or .toml files (policy.Parse).
	// A run folder is named after the preset, or the file's base name.
	Policies []string
	// Seeds runs per policy, with training seeds FirstSeed, FirstSeed+1, ...
	Seeds     int
	FirstSeed uint64
	Steps     int     // training steps per run
	Batch     int     // batch size
	LR        float64 // Adam learning rate
	// CheckpointEvery > 0 rewrites a run's checkpoint every so many steps;
	// 0 writes it only when the run ends.
	CheckpointEvery int
	// N images per FID: generated ones from noise drawn with EvalSeed (for
	// a conditional GAN, labels cycling through the classes), and real
	// ones drawn with EvalSeed from the test split. The same for every run.
	N        int
	EvalSeed uint64
	// BatchStats makes the generators normalise each batch of 100 by its
	// own statistics, as the reference DCGAN code evaluates, instead of
	// using batch norm's running statistics (gan.SampleOptions).
	BatchStats bool
	// Features is the FID's feature network (featnet.Load); empty means
	// lenet-mnist for mnist and lenet-fashion for fashion-mnist (models
	// with an Evaluator: its choice).
	Features string
	Out      string // the sweep's folder
	// Options are model options (models.Config.Options, e.g. g_features
	// 128 for dcgan), set over the model's default configuration for the
	// data as positgan train --option sets them: an unknown key or a bad
	// value is a *ConfigError of Options. Nil or empty for none. The run
	// folders do not depend on them.
	Options map[string]string
	// Metrics are set metrics measured beside the FID for every run of a
	// generator (eval.LookupSet names, e.g. "prdc", "kid"), from the same
	// features of the same images; "fid" is always measured, and nil
	// measures nothing else. Their figures are table columns after the
	// others. A finished run that lacks one is measured again for it from
	// its checkpoint, without training. A model with an Evaluator takes
	// none.
	Metrics []string
	// Baseline is the policy the table tests every other row against,
	// seed against seed (eval.Significance); "" means "fp32". Alpha is the
	// level of the tests, Holm-corrected across rows; 0 means 0.05.
	// Neither changes what is trained or measured.
	Baseline string
	Alpha    float64
	// Log, if not nil, receives a line when a run starts, resumes or
	// ends, and when the reference statistics are computed.
	Log io.Writer
	// Progress, if not nil, is called before a run trains from step start
	// to Steps, with the names of the step's figures (see
	// gan.Trainer.LogColumns); the function it returns, if not nil, after
	// every step.
	Progress func(r Run, start int, columns []string) func(st StepStats, elapsed time.Duration)
}

// A Run is one (policy, seed) run of a sweep.
type Run struct {
	Policy string // the folder name: preset name, or policy file's base name
	Seed   uint64
	Dir    string // Out/<Policy>/seed<Seed>
	policy *policy.Policy
}

func (r Run) String() string { return fmt.Sprintf("%s seed %d", r.Policy, r.Seed) }

// A ConfigError says which field of a Sweep is invalid, or does not fit
// the data or the runs already in Out.
type ConfigError struct {
	Field string // the Sweep field, e.g. "Steps"
	Value string // its value, if the message needs it
	Err   error
}

func (e *ConfigError) Error() string {
	s := "experiment: " + e.Field
	if e.Value != "" {
		s += " " + e.Value
	}
	return s + ": " + e.Err.Error()
}

func (e *ConfigError) Unwrap() error { return e.Err }

func configErrorf(field, value, format string, a ...any) error {
	return &ConfigError{Field: field, Value: value, Err: fmt.Errorf(format, a...)}
}

// A RunError is the failure of one run. If Err is gan.ErrInterrupted, the
// run's checkpoint was written and Compare continues it when called again.
type RunError struct {
	Run Run
	Err error
}

func (e *RunError) Error() string { return "experiment: " + e.Run.String() + ": " + e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// ResultFile is the name of the file in a run's folder that records its
// Result.
const ResultFile = "result.json"

// check checks the fields Compare needs before it reads anything, and
// fills in Features.
func (s *Sweep) check() error {
	switch {
	case s.Steps <= 0:
		return configErrorf("Steps", strconv.Itoa(s.Steps), "must be positive")
	case s.Seeds <= 0:
		return configErrorf("Seeds", strconv.Itoa(s.Seeds), "must be positive")
	case s.N < 2:
		return configErrorf("N", strconv.Itoa(s.N), "an FID needs at least 2 images")
	case s.N > MaxGenerated:
		return configErrorf("N", strconv.Itoa(s.N), "at most %d generated images are measured", MaxGenerated)
	case s.Batch <= 0:
		return configErrorf("Batch", strconv.Itoa(s.Batch), "must be positive")
	case !(s.LR > 0):
		return configErrorf("LR", fmt.Sprint(s.LR), "must be positive")
	case s.CheckpointEvery < 0:
		return configErrorf("CheckpointEvery", strconv.Itoa(s.CheckpointEvery), "must not be negative")
	case !knownModel(s.Model) && evaluatorOf(s.Model) == nil:
		return configErrorf("Model", strconv.Quote(s.Model), "want one of %s", strings.Join(sweepModels(), ", "))
	case s.Out == "":
		return configErrorf("Out", "", "empty folder name")
	}
	if err := models.CheckOptions(s.Model, s.Options); err != nil { // the values need the data: withOptions
		return &ConfigError{Field: "Options", Err: err}
	}
	if err := s.checkSignificance(); err != nil {
		return err
	}
	if ev := evaluatorOf(s.Model); ev != nil {
		if _, err := ev.Metrics(s); err != nil {
			return &ConfigError{Field: "Features", Value: s.Features, Err: err}
		}
		return nil
	}
	if s.Features == "" {
		switch s.Dataset {
		case "mnist":
			s.Features = "lenet-mnist"
		case "fashion-mnist":
			s.Features = "lenet-fashion"
		default:
			return configErrorf("Features", "", "no default for data set %s; name a feature network (%s)", s.Dataset, featnet.Specs)
		}
	}
	return nil
}

// Runs parses the policies and lays out the runs, policy by policy, seed
// by seed.
func (s Sweep) Runs() ([]Run, error) {
	if len(s.Policies) == 0 {
		return nil, configErrorf("Policies", "", "none given")
	}
	if s.Seeds <= 0 {
		return nil, configErrorf("Seeds", strconv.Itoa(s.Seeds), "must be positive")
	}
	// Bounded as a plan is, before anything is laid out: each run is a
	// few hundred bytes and a training.
	if n := len(s.Policies); s.Seeds > MaxPlanRuns || n*s.Seeds > MaxPlanRuns {
		return nil, configErrorf("Seeds", strconv.Itoa(s.Seeds), "%d policies × %d seeds: a sweep has at most %d runs", n, s.Seeds, MaxPlanRuns)
	}
	ps, err := ParsePolicies(s.Policies)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, p := range ps {
		for k := range s.Seeds {
			seed := s.FirstSeed + uint64(k)
			runs = append(runs, Run{Policy: p.Label, Seed: seed, policy: p.Policy,
				Dir: filepath.Join(s.Out, p.Label, fmt.Sprintf("seed%d", seed))})
		}
	}
	return runs, nil
}

// withOptions returns cfg, the model's default configuration for images
// of shape sh, with s.Options set over its own, as positgan train
// --option does; an unknown key or a bad value is a *ConfigError of
// Options.
func (s *Sweep) withOptions(cfg models.Config, sh datasets.Shape) (models.Config, error) {
	if len(s.Options) == 0 {
		return cfg, nil
	}
	c, err := cfg.WithOptions(s.Options)
	if err != nil {
		return cfg, configErrorf("Options", "", "%w (data: %v images)", err, sh)
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "model options: %s\n", s.optionList())
	}
	return c, nil
}

// optionList returns s.Options as key=value, comma-separated, sorted by
// key; "" for none.
func (s *Sweep) optionList() string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(s.Options)) {
		kv = append(kv, k+"="+s.Options[k])
	}
	return strings.Join(kv, ",")
}

// Compare runs the sweep: every run not finished yet is trained to
// s.Steps (from scratch, or on from its checkpoint) and its FID measured;
// the table files in s.Out are rewritten after every run. Invalid fields,
// and checkpoints in s.Out that belong to another sweep, give a
// *ConfigError before anything is trained; the failure of a run gives a
// *RunError. Cancelling ctx stops the run under way after its current
// step, with its checkpoint written (a *RunError wrapping
// gan.ErrInterrupted).
func Compare(ctx context.Context, s Sweep) (*Table, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	return compare(ctx, s, runs, scope{tidy: true, table: true})
}

// A scope says which of a sweep's runs one call trains, and what it may
// do to the sweep's folder.
type scope struct {
	shard Shard // the runs to train; the zero Shard is all of them
	// tidy removes temporary files from s.Out: only a process that owns
	// the folder may, since a writer's pid tells nothing across hosts.
	tidy  bool
	table bool // write the table files into s.Out
}

// compare trains and measures the runs of sc.shard that are not finished
// yet, claiming each (claimRun), and returns the table of every run of
// the shard that is finished.
func compare(ctx context.Context, s Sweep, runs []Run, sc scope) (*Table, error) {
	log := s.Log
	if log == nil {
		log = io.Discard
	}
	ms := &measurer{ev: evaluatorOf(s.Model)}
	var test datasets.Dataset
	var err error
	if ms.ev != nil {
		if ms.columns, err = ms.ev.Metrics(&s); err != nil {
			return nil, &ConfigError{Field: "Features", Value: s.Features, Err: err}
		}
		ms.metric = evaluatorMetric(ms.columns)
	} else {
		if ms.ext, err = featnet.Load(s.Features); err != nil {
			return nil, &ConfigError{Field: "Features", Err: err}
		}
		if ms.metric, err = fidLabel(ms.ext.Name()); err != nil {
			return nil, err
		}
		if ms.extra, err = s.extraMetrics(ms.ext.Name()); err != nil {
			return nil, err
		}
	}
	m, err := loadModel(&s)
	if err != nil {
		return nil, err
	}
	if m.cfg, err = s.withOptions(m.cfg, m.data[0].Shape()); err != nil {
		return nil, err
	}
	if ms.ev == nil {
		sh := m.data[0].Shape()
		if test, err = datasets.Load(s.Dataset, datasets.Options{Split: datasets.Test, Height: sh.H, Width: sh.W, Channels: sh.C}); err != nil {
			return nil, configErrorf("Dataset", s.Dataset, "the FID's real images come from the test split: %w", err)
		}
		if test.Len() < s.N {
			return nil, configErrorf("N", strconv.Itoa(s.N), "the test split of %s has only %d images", s.Dataset, test.Len())
		}
	}
	if err := atomicfile.MkdirWritable(s.Out); err != nil {
		return nil, err
	}
	if sc.tidy {
		if _, err := atomicfile.RemoveTemps(s.Out); err != nil {
			return nil, err
		}
	}
	// Existing checkpoints must belong to this sweep.
	for i, r := range runs {
		if !sc.shard.Has(i) {
			continue
		}
		if err := m.checkCheckpoint(&s, r); err != nil {
			return nil, err
		}
	}
	if ms.ev == nil {
		if ms.ref, err = reference(&s, test, ms.ext, needsRows(ms.extra), log); err != nil {
			return nil, err
		}
	}

	metric := ms.metric
	t := &Table{Sweep: s, Metric: metric, Columns: ms.columns, Extra: extraColumns(ms.extra), Runs: runs, Results: make([]*Result, len(runs)), channels: m.data[0].Shape().C}
	writeTable := func() error {
		if !sc.table {
			return nil
		}
		return t.writeFiles()
	}
	start := time.Now()
	measured := 0 // runs this call trained or evaluated, for the ETA
	left := 0
	for i, r := range runs {
		if !sc.shard.Has(i) {
			continue
		}
		if res, ok := readResult(&s, r, metric); ok {
			if missingExtra(res, ms.extra) && !(res.Status == gan.StatusDiverged && res.GoodStep == 0) {
				// Finished, but not measured by every metric asked
				// for: only the features are extracted again.
				if err := remeasure(&s, r, res, ms); err != nil {
					return nil, &RunError{Run: r, Err: err}
				}
				fmt.Fprintf(log, "[%d/%d] %s: done; measured again for %s\n", i+1, len(runs), r, strings.Join(t.Extra, ", "))
			}
			t.Results[i] = res
			fmt.Fprintf(log, "[%d/%d] %s: done (%s)\n", i+1, len(runs), r, t.headline(res))
		} else {
			left++
		}
	}
	var busy []*RunError // runs other processes were training
	for i, r := range runs {
		if t.Results[i] != nil || !sc.shard.Has(i) {
			continue
		}
		eta := ""
		if measured > 0 {
			eta = fmt.Sprintf(", comparison eta %s", (time.Since(start) / time.Duration(measured) * time.Duration(left-measured)).Round(time.Second))
		}
		fmt.Fprintf(log, "[%d/%d] %s%s\n", i+1, len(runs), r, eta)
		res, err := claimRun(ctx, &s, m, r, ms, log)
		if errors.Is(err, ErrBusy) {
			fmt.Fprintf(log, "[%d/%d] %s: %v\n", i+1, len(runs), r, err)
			busy = append(busy, &RunError{Run: r, Err: err})
			continue
		}
		if err != nil {
			return nil, &RunError{Run: r, Err: err}
		}
		measured++
		t.Results[i] = res
		fmt.Fprintf(log, "[%d/%d] %s: %s, %.3f s/step\n", i+1, len(runs), r, t.headline(res), res.SPerStep)
		if err := writeTable(); err != nil {
			return nil, err
		}
	}
	// Runs other processes held may have finished meanwhile.
	var pending []*RunError
	for _, e := range busy {
		i := slices.IndexFunc(runs, func(r Run) bool { return r.Dir == e.Run.Dir })
		if res, ok := readResult(&s, e.Run, metric); ok {
			t.Results[i] = res
		} else {
			pending = append(pending, e)
		}
	}
	if err := writeTable(); err != nil {
		return nil, err
	}
	if len(pending) > 0 {
		return nil, pending[0]
	}
	return t, nil
}

// reference returns the features of N test images: their statistics,
// and their rows if rows is true (for metrics that need them), cached in
// files whose names say how they were made.
func reference(s *Sweep, test datasets.Dataset, ext featnet.Extractor, rows bool, log io.Writer) (eval.Features, error) {
	path := filepath.Join(s.Out, fmt.Sprintf("reference_%s_n%d_seed%d.npz", fileSafeName(s.Features), s.N, s.EvalSeed))
	rowsPath := strings.TrimSuffix(path, ".npz") + "_features.npz"
	if !rows {
		if st, err := eval.ReadStats(path); err == nil && st.Dim() == ext.Dim() {
			return eval.Features{Stats: st}, nil
		}
	} else if f, err := eval.ReadFeatures(rowsPath); err == nil && f.Stats.Dim() == ext.Dim() {
		if n, _ := f.Rows.Dims(); n == s.N {
			return f, nil
		}
	}
	fmt.Fprintf(log, "reference: features (%s) of %d test images of %s -> %s\n", ext.Name(), s.N, s.Dataset, path)
	sub, err := datasets.Sample(test, s.N, s.EvalSeed)
	if err != nil {
		return eval.Features{}, err
	}
	x, err := featnet.FeaturesOf(ext, sub, 100)
	if err != nil {
		return eval.Features{}, fmt.Errorf("reference: %w", err)
	}
	st, err := eval.StatsOf(x)
	if err != nil {
		return eval.Features{}, fmt.Errorf("reference: %w", err)
	}
	if err := eval.WriteStats(path, st); err != nil {
		return eval.Features{}, err
	}
	f := eval.Features{Stats: st}
	if rows {
		f.Rows = x
		if err := eval.WriteFeatures(rowsPath, f); err != nil {
			return eval.Features{}, err
		}
	}
	return f, nil
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
