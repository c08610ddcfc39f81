package experiment

// The models a sweep can train, and one run of a sweep: its model and
// data, its trainer with checkpoints, and the figures read back from its
// log. A model's configuration for its data (ModelConfig) and the check
// that a checkpoint continues a run (CheckResume) are shared with
// positgan train.

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

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// StepStats are the figures of one training step, as Sweep.Progress
// receives them.
type StepStats = gan.StepStats

// knownModel reports whether name is a registered model that makes images
// from noise, the models whose generators an FID measures.
func knownModel(name string) bool {
	if _, err := models.Lookup(name); err != nil {
		return false
	}
	return slices.Contains(generatorModels(), name)
}

// generatorModels returns the registered models that are gan.Generators.
func generatorModels() []string {
	var ns []string
	for _, n := range models.Names() {
		s, _ := models.Lookup(n)
		c := s.Default(datasets.Shape{C: 1, H: 28, W: 28}, 10)
		c.Arch = n
		if m, err := s.New(c); err == nil {
			if _, ok := m.(gan.Generator); ok {
				ns = append(ns, n)
			}
		}
	}
	return ns
}

// sweepModels returns the models a sweep can compare: generators, and
// models with an Evaluator.
func sweepModels() []string {
	ns := generatorModels()
	for _, n := range models.Names() {
		if evaluatorOf(n) != nil && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns
}

// model is what a sweep trains: the model's configuration and the
// training data (one data set per domain the model reads).
type model struct {
	cfg  models.Config
	data []datasets.Dataset
}

// loadModel loads the training split of s.Dataset (for a model with an
// Evaluator, the data its Data method returns) and configures s.Model for
// it.
func loadModel(s *Sweep) (*model, error) {
	var data []datasets.Dataset
	if ev := evaluatorOf(s.Model); ev != nil {
		var err error
		if data, err = ev.Data(s); err != nil {
			return nil, &ConfigError{Field: "Dataset", Err: err}
		}
	} else {
		ds, err := LoadTrainSet(s.Dataset, 0, 0)
		if err != nil {
			return nil, &ConfigError{Field: "Dataset", Err: err}
		}
		data = []datasets.Dataset{ds}
	}
	if _, err := models.Lookup(s.Model); err != nil {
		return nil, configErrorf("Model", s.Model, "%w", err)
	}
	cfg, err := ModelConfig(s.Model, data[0], 0, nil)
	var le *LabelsError
	if errors.As(err, &le) {
		return nil, configErrorf("Model", s.Model, "needs labelled data (2 or more classes); %s has %d: use dcgan", s.Dataset, le.Classes)
	} else if err != nil {
		return nil, configErrorf("Model", s.Model, "%w (data: %v images)", err, data[0].Shape())
	}
	for _, ds := range data {
		if ds.Len() < s.Batch {
			return nil, configErrorf("Batch", strconv.Itoa(s.Batch), "the data set has only %d images", ds.Len())
		}
	}
	return &model{cfg: cfg, data: data}, nil
}

// LoadTrainSet loads the training split of the data set spec names (see
// datasets.Load) with images of size×size (0: the data's own size, or
// 64×64 for a folder of images, the DCGAN setting) and channels (0: the
// data's own).
// It is models.LoadTrainSet, the data of a model without a loader of its
// own (models.TrainData).
func LoadTrainSet(spec string, size, channels int) (*datasets.Set, error) {
	return models.LoadTrainSet(spec, size, channels)
}

// A LabelsError says that a conditional model was given data with fewer
// than two classes.
type LabelsError struct {
	Model   string
	Classes int // the data's
}

func (e *LabelsError) Error() string {
	return fmt.Sprintf("experiment: %s needs labelled data (2 or more classes); the data has %d", e.Model, e.Classes)
}

// ModelConfig returns the configuration of the registered model for data
// ds: the model's default for the data's shape and, for a conditional
// model, its classes (a *LabelsError if it has fewer than two), with
// features as the width unit (0: the model's default) and the model
// options.
func ModelConfig(model string, ds datasets.Dataset, features int, options map[string]string) (models.Config, error) {
	spec, err := models.Lookup(model)
	if err != nil {
		return models.Config{}, err
	}
	classes := 0
	if spec.Labels {
		if classes = ds.NumClasses(); classes < 2 {
			return models.Config{}, &LabelsError{Model: model, Classes: classes}
		}
	}
	cfg, err := models.DefaultConfig(model, ds.Shape(), classes)
	if features > 0 || len(options) > 0 {
		if features > 0 {
			cfg.Features = features
		}
		cfg, err = cfg.WithOptions(options)
	}
	return cfg, err
}

// The one check that a checkpoint is the run meant to continue:
// positgan train --resume and a sweep's runs (checkCheckpoint) both ask
// it, each about the settings it fixes, and word the answer for their
// own users.

// A Setting is a setting of a training run that CheckResume compares.
type Setting string

// The settings CheckResume compares.
const (
	SettingModel   Setting = "model"   // the registered model (Config.Arch)
	SettingConfig  Setting = "config"  // the whole model configuration, as models.Config.String
	SettingOption  Setting = "option"  // each of Resume.Options
	SettingSeed    Setting = "seed"    // gan.Options.Seed
	SettingBatch   Setting = "batch"   // gan.Options.Batch
	SettingLR      Setting = "lr"      // gan.Options.LR
	SettingDataset Setting = "dataset" // the data set (gan.MetaDataset), if the checkpoint records it
	SettingPolicy  Setting = "policy"  // the quantization policy, if the checkpoint has one
	SettingStep    Setting = "step"    // the checkpoint's step, which must not be past Resume.Steps
)

// Resume describes the run meant to continue a checkpoint.
type Resume struct {
	// Compare lists the settings to compare, in the order in which
	// mismatches are reported; the others are not read.
	Compare []Setting
	Config  models.Config     // SettingModel reads only its Arch
	Options map[string]string // model options the checkpoint's configuration must have so
	Seed    uint64
	Batch   int
	LR      float64
	Dataset string
	Policy  *policy.Policy
	Steps   int // the run's length
}

// A Mismatch is a setting in which a checkpoint's run differs from the
// run meant to continue it.
type Mismatch struct {
	Setting Setting
	Option  string // the option's name, for SettingOption
	// Saved is the checkpoint's value ("" for an option it does not
	// set; its raw configuration for SettingConfig) and Want the wanted
	// one, formatted as %d and %g format them; for SettingPolicy, the
	// policies' names.
	Saved, Want string
}

// Resumed is a checkpoint's run as CheckResume reads it.
type Resumed struct {
	State *gan.Saved
	// Config is the checkpoint's model configuration; the zero Config
	// if it cannot be read and only SettingConfig needed it (which is
	// then a mismatch).
	Config     models.Config
	Dataset    string // the data set it was trained on; "" if not recorded
	Mismatches []Mismatch
}

// CheckResume reads the run checkpoint c holds and compares the settings
// want.Compare names with want. An unreadable checkpoint is an error; a
// run that differs is not, but has Mismatches.
func CheckResume(c *ckpt.Checkpoint, want Resume) (Resumed, error) {
	st, err := gan.ReadState(c)
	if err != nil {
		return Resumed{}, err
	}
	r := Resumed{State: st, Dataset: c.Meta[gan.MetaDataset]}
	cfg, cfgErr := models.ConfigOf(c)
	if cfgErr == nil {
		r.Config = cfg
	}
	o := st.Options
	add := func(s Setting, saved, want string) {
		r.Mismatches = append(r.Mismatches, Mismatch{Setting: s, Saved: saved, Want: want})
	}
	for _, s := range want.Compare {
		if cfgErr != nil && (s == SettingModel || s == SettingOption) {
			return Resumed{}, cfgErr
		}
		switch s {
		case SettingModel:
			if want.Config.Arch != cfg.Arch {
				add(s, cfg.Arch, want.Config.Arch)
			}
		case SettingConfig:
			if w := want.Config.String(); cfgErr != nil || cfg.String() != w {
				add(s, st.Model, w)
			}
		case SettingOption:
			for _, k := range slices.Sorted(maps.Keys(want.Options)) {
				if v, ok := cfg.Options[k]; !ok || v != want.Options[k] {
					r.Mismatches = append(r.Mismatches, Mismatch{Setting: s, Option: k, Saved: v, Want: want.Options[k]})
				}
			}
		case SettingSeed:
			if o.Seed != want.Seed {
				add(s, strconv.FormatUint(o.Seed, 10), strconv.FormatUint(want.Seed, 10))
			}
		case SettingBatch:
			if o.Batch != want.Batch {
				add(s, strconv.Itoa(o.Batch), strconv.Itoa(want.Batch))
			}
		case SettingLR:
			if o.LR != want.LR {
				add(s, strconv.FormatFloat(o.LR, 'g', -1, 64), strconv.FormatFloat(want.LR, 'g', -1, 64))
			}
		case SettingDataset:
			if r.Dataset != "" && r.Dataset != want.Dataset {
				add(s, r.Dataset, want.Dataset)
			}
		case SettingPolicy:
			if o.Policy != nil && o.Policy.String() != want.Policy.String() {
				add(s, o.Policy.Name, want.Policy.Name)
			}
		case SettingStep:
			if st.Step > want.Steps {
				add(s, strconv.Itoa(st.Step), strconv.Itoa(want.Steps))
			}
		default:
			panic("experiment: CheckResume: unknown setting " + string(s))
		}
	}
	return r, nil
}

// checkCheckpoint checks that a run's checkpoint, if it has one, is a run
// of this sweep that s.Steps can continue.
func (m *model) checkCheckpoint(s *Sweep, r Run) error {
	c, err := loadCheckpoint(r)
	if c == nil || err != nil {
		return err
	}
	path := filepath.Join(r.Dir, checkpointFile)
	res, err := CheckResume(c, Resume{
		Compare: []Setting{SettingConfig, SettingSeed, SettingBatch, SettingLR, SettingDataset, SettingPolicy, SettingStep},
		Config:  m.cfg.WithPolicy(r.policy), Seed: r.Seed, Batch: s.Batch, LR: s.LR, Dataset: s.Dataset,
		Policy: r.policy, Steps: s.Steps,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var bad []string
	for _, d := range res.Mismatches {
		switch d.Setting {
		case SettingConfig:
			bad = append(bad, fmt.Sprintf("model %s (now %s)", d.Saved, d.Want))
		case SettingPolicy:
			bad = append(bad, "a different policy "+r.Policy)
		case SettingStep:
			bad = append(bad, fmt.Sprintf("step %s (past %s steps)", d.Saved, d.Want))
		default:
			bad = append(bad, fmt.Sprintf("%s %s (now %s)", d.Setting, d.Saved, d.Want))
		}
	}
	if len(bad) > 0 {
		return configErrorf("Out", "", "%s was trained with %s: use another folder", path, strings.Join(bad, ", "))
	}
	return nil
}

// train trains run r to s.Steps: from scratch, or on from its checkpoint.
// Either way r.Dir ends with the checkpoint and log of s.Steps steps.
func (m *model) train(ctx context.Context, s *Sweep, r Run, log io.Writer) error {
	c, err := loadCheckpoint(r)
	if err != nil {
		return err
	}
	if c != nil {
		st, err := gan.ReadState(c)
		if err != nil {
			return err
		}
		if st.Step >= s.Steps {
			return nil
		}
	}
	t, err := NewTrainer(c, m.cfg, m.data, gan.Options{Policy: r.policy, Batch: s.Batch, Seed: r.Seed, LR: s.LR})
	if err != nil {
		return err
	}
	if c != nil {
		fmt.Fprintf(log, "%s: resuming at step %d of %d\n", r, t.Step(), s.Steps)
	}
	var onStep func(gan.StepStats, time.Duration)
	if s.Progress != nil {
		onStep = s.Progress(r, t.Step(), t.LogColumns())
	}
	_, err = t.Run(ctx, gan.RunOptions{Dir: r.Dir, Steps: s.Steps, CheckpointEvery: s.CheckpointEvery,
		Meta: map[string]string{gan.MetaDataset: s.Dataset}, OnStep: onStep})
	return err
}

// NewTrainer returns a trainer on data that continues the run checkpoint
// c saved (models.Resume) or, if c is nil, starts a run of the model cfg
// describes with options o, in o.Policy. positgan train and sweeps start
// every run through it.
func NewTrainer(c *ckpt.Checkpoint, cfg models.Config, data []datasets.Dataset, o gan.Options) (*gan.Trainer, error) {
	if c != nil {
		return models.Resume(c, data...)
	}
	m, err := models.New(cfg.WithPolicy(o.Policy))
	if err != nil {
		return nil, err
	}
	return gan.NewTrainer(m, data, o)
}

// readFigures fills the training figures of res from a run's log.csv:
// mean losses over the last 100 steps, skipped updates and the mean step
// time over the whole run, and the run's health from the last step's
// status (a diverged run logs fewer steps).
func readFigures(res *Result, path string, steps int) error {
	rows, err := gan.ReadLog(path)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: no steps logged", path)
	}
	if st := rows[len(rows)-1].Status; st != "" && st != gan.StatusOK {
		res.Status = st
	}
	if len(rows) != steps && res.Status != gan.StatusDiverged {
		return fmt.Errorf("%s: %d steps logged, want %d", path, len(rows), steps)
	}
	last := min(100, len(rows))
	var secs float64
	names := slices.Sorted(maps.Keys(rows[0].Values)) // a fixed order of summing
	for i, row := range rows {
		secs += row.StepSeconds
		for _, name := range names {
			v := row.Value(name)
			switch {
			case strings.HasPrefix(name, "skipped_d"): // skipped_d, or skipped_d_a, skipped_d_b, ...
				res.SkippedD += int(v)
			case strings.HasPrefix(name, "skipped_g"):
				res.SkippedG += int(v)
			case i >= len(rows)-last && isDLoss(name):
				res.DLoss += v / float64(last)
			}
		}
		if i >= len(rows)-last {
			res.GLoss += row.Value("g_loss") / float64(last)
		}
	}
	res.SPerStep = secs / float64(len(rows))
	return nil
}

// isDLoss reports whether a log column is the loss of a discriminator:
// d_loss, or d_<name>_loss for a model with several (CycleGAN: d_a_loss,
// d_b_loss), which the table sums.
func isDLoss(name string) bool {
	return name == "d_loss" || strings.HasPrefix(name, "d_") && strings.HasSuffix(name, "_loss")
}

// GeneratorStats returns the feature statistics (ext's features) of n
// images that the generator of checkpoint c makes from noise drawn with
// seed, batch images at a time (batch <= 0 means 100); a conditional
// generator's labels cycle through the classes. Batch norm uses its
// running statistics, so an image does not depend on its batch; for
// checkpoints written before running statistics were kept (and with
// o.BatchStats), the generator normalises each batch by its own
// statistics and FIDs are comparable only between image sets made with
// the same batch. It is what Compare measures, and what positgan eval fid
// measures of a checkpoint (with batch 100).
func GeneratorStats(c *ckpt.Checkpoint, ext featnet.Extractor, n int, seed uint64, batch int, o gan.SampleOptions) (eval.Stats, error) {
	f, err := GeneratorFeatures(c, ext, n, seed, batch, o)
	if err != nil {
		return eval.Stats{}, err
	}
	return eval.StatsOf(f)
}

// checkpointHasRunningStats reports whether the networks of c keep batch
// norm's running statistics (checkpoints written before they were kept do
// not, and can only be evaluated with batch statistics).
func checkpointHasRunningStats(c *ckpt.Checkpoint) bool {
	n, _, err := models.Load(c, nil)
	return err == nil && !n.BatchStats
}

// hasRunningStats reports it for the checkpoint of run r.
func hasRunningStats(r Run) bool {
	c, err := loadCheckpoint(r)
	return err == nil && c != nil && checkpointHasRunningStats(c)
}
