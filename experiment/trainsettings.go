package experiment

// The settings of positgan train and what resuming a checkpoint does to
// them: the checkpoint's run supplies every setting not given.

import (
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// TrainSettings are the settings of a training in one or more policies
// (TrainRuns) that a resumed checkpoint may supply.
type TrainSettings struct {
	Model, Dataset                string
	Seed                          uint64
	Batch                         int
	LR                            float64
	BiasEvery                     int
	ImageSize, Channels, Features int
	Options                       map[string]string // model options (models.Config.Options)
	// Given names the settings given explicitly, by positgan train's flag
	// names: model, dataset, seed, batch, lr, bias-every, image-size,
	// channels, features and option. A given setting must match a resumed
	// checkpoint; the others are taken from it.
	Given map[string]bool
}

// Resume compares the run checkpoint c holds with s (CheckResume): the
// given model, batch, seed, learning rate and data set, the model options
// and the policy pol. If nothing differs, s takes the checkpoint's model,
// batch, and (where not given) data set and image size; if something
// does, s is left as it is and the Resumed has Mismatches.
func (s *TrainSettings) Resume(c *ckpt.Checkpoint, pol *policy.Policy) (Resumed, error) {
	want := Resume{Config: models.Config{Arch: s.Model}, Options: s.Options,
		Seed: s.Seed, Batch: s.Batch, LR: s.LR, Dataset: s.Dataset, Policy: pol}
	for _, st := range []Setting{SettingModel, SettingBatch, SettingSeed, SettingLR, SettingDataset} {
		if s.Given[string(st)] {
			want.Compare = append(want.Compare, st)
		}
	}
	want.Compare = append(want.Compare, SettingOption, SettingPolicy)
	res, err := CheckResume(c, want)
	if err != nil || len(res.Mismatches) > 0 {
		return res, err
	}
	if !s.Given["dataset"] && res.Dataset != "" {
		s.Dataset = res.Dataset
	}
	cfg := res.Config
	if !s.Given["image-size"] && !s.Given["channels"] {
		s.ImageSize, s.Channels = cfg.Height, cfg.Channels
	}
	s.Batch, s.Model = res.State.Options.Batch, cfg.Arch
	return res, nil
}

// Adopt takes, for the settings not given, the seed, learning rate, bias
// interval, width and model options of first, the first resumed run of a
// training, and returns its configuration: runs of the training without
// a checkpoint start in it. With first nil it does nothing and returns
// the zero Config.
func (s *TrainSettings) Adopt(first *Resumed) models.Config {
	if first == nil {
		return models.Config{}
	}
	o, cfg := first.State.Options, first.Config
	if !s.Given["seed"] {
		s.Seed = o.Seed
	}
	if !s.Given["lr"] {
		s.LR = o.LR
	}
	if !s.Given["bias-every"] {
		s.BiasEvery = o.BiasEvery
	}
	if !s.Given["features"] {
		s.Features = cfg.Features // so that a run's settings hold the width trained
	}
	if !s.Given["option"] && len(cfg.Options) > 0 {
		s.Options = maps.Clone(cfg.Options)
	}
	return cfg
}

// UseModelDefaults gives the data set and batch, when not given, the
// model's training defaults (models.TrainDefaultsOf), as a training and
// a sweep of the model both do. A data set other than
// models.DefaultDataset (a resumed checkpoint's) is kept, and so is the
// batch if keepBatch (a resumed run's).
func UseModelDefaults(model string, given map[string]bool, dataset *string, batch *int, keepBatch bool) {
	d := models.TrainDefaultsOf(model)
	if !given["dataset"] && *dataset == models.DefaultDataset {
		*dataset = d.Dataset
	}
	if !given["batch"] && !keepBatch {
		*batch = d.Batch
	}
}

// WriteSummary writes what positgan train prints when a run ends: its
// steps and time, the mean losses and metrics of its last steps, the
// updates skipped and the loss scales, a warning if the run ended
// unhealthy, and the files written.
func (r *TrainRun) WriteSummary(w io.Writer, sum gan.Summary) error {
	n := sum.LastStep - sum.FirstStep
	var losses, skipped, scales []string
	for i, u := range sum.Updates {
		losses = append(losses, fmt.Sprintf("%s loss %.3f", u, sum.MeanLosses[i]))
		skipped = append(skipped, fmt.Sprintf("%s %d", u, sum.Skipped[i]))
		scales = append(scales, fmt.Sprintf("%s %g", u, sum.FinalScales[i]))
	}
	for i, m := range sum.Metrics {
		losses = append(losses, fmt.Sprintf("%s %.2f", m, sum.MeanMetrics[i]))
	}
	fmt.Fprintf(w, "%s: %d steps in %s (%.3f s/step); last %d steps: %s; skipped updates %s; loss scales after the last step %s\n",
		r.Label, n, sum.Elapsed.Round(time.Second), sum.Elapsed.Seconds()/float64(max(n, 1)), min(n, 100),
		strings.Join(losses, ", "), strings.Join(skipped, ", "), strings.Join(scales, ", "))
	wrote := []string{sum.Checkpoint, sum.Log}
	if sum.Samples != "" {
		wrote = append([]string{sum.Samples}, wrote...)
	}
	if sum.Status != gan.StatusOK {
		fmt.Fprintf(w, "%s: WARNING: the run ended %s (%s); %s keeps step %d, the last before the alarm, and %s the last state\n",
			r.Label, sum.Status, strings.Join(sum.Warnings, "; "), sum.Checkpoint, sum.LastHealthy, sum.Unhealthy)
		wrote = append(wrote, sum.Unhealthy)
	}
	_, err := fmt.Fprintf(w, "%s: wrote %s\n", r.Label, strings.Join(wrote, ", "))
	return err
}

// A ResumeMismatchError is a run whose checkpoint holds a run that
// differs from the settings meant to continue it (TrainSettings.Resume).
type ResumeMismatchError struct {
	Run        *TrainRun
	Mismatches []Mismatch
}

func (e *ResumeMismatchError) Error() string {
	var s []string
	for _, m := range e.Mismatches {
		if m.Setting == SettingOption {
			s = append(s, fmt.Sprintf("option %s %q (checkpoint: %q)", m.Option, m.Want, m.Saved))
		} else {
			s = append(s, fmt.Sprintf("%s %s (checkpoint: %s)", m.Setting, m.Want, m.Saved))
		}
	}
	return fmt.Sprintf("experiment: %s: the checkpoint's run differs: %s", e.Run.Dir, strings.Join(s, ", "))
}

// ResumeRuns loads each run's checkpoint (LoadCheckpoint) and checks it
// against s (Resume), then takes the first resumed run's settings for
// those not given (Adopt) and returns its configuration, in which the
// runs without a checkpoint start from scratch. A checkpoint that differs
// is a *ResumeMismatchError; runs none of which was ever started
// (CheckResumable) are a *NoCheckpointError.
func (s *TrainSettings) ResumeRuns(runs []*TrainRun) (models.Config, error) {
	var first *Resumed
	for _, r := range runs {
		var err error
		if r.Checkpoint, err = LoadCheckpoint(r.Dir); err != nil {
			return models.Config{}, err
		}
		if r.Checkpoint == nil {
			continue
		}
		res, err := s.Resume(r.Checkpoint, r.Policy)
		if err != nil {
			return models.Config{}, err
		}
		if len(res.Mismatches) > 0 {
			return models.Config{}, &ResumeMismatchError{Run: r, Mismatches: res.Mismatches}
		}
		if first == nil {
			first = &res
		}
	}
	if err := CheckResumable(runs); err != nil {
		return models.Config{}, err
	}
	return s.Adopt(first), nil
}
