package experiment

// Training the runs of positgan train to their end, one after the other,
// with progress on a log and a summary of each run.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
)

// StartRuns builds the trainer of every run (TrainRun.Start) on data,
// warns on log of a policy's layer globs that match no layer of the
// model, and makes the runs' folders, checking they can be written: only
// once every run could start, so that a wrong setting leaves no folder.
func StartRuns(runs []*TrainRun, cfg models.Config, data []datasets.Dataset, o gan.Options, log io.Writer) error {
	for _, r := range runs {
		if err := r.Start(cfg, data, o); err != nil {
			return err
		}
		names := r.Trainer.Nets().Names()
		if globs := r.Policy.Unmatched(names); len(globs) > 0 {
			fmt.Fprintf(log, "warning: policy %s: layer glob %s matches no layer of this model (its layers: %s)\n",
				r.Label, strings.Join(globs, ", "), strings.Join(names, " "))
		}
	}
	for _, r := range runs {
		if err := atomicfile.MkdirWritable(r.Dir); err != nil {
			return err
		}
	}
	return nil
}

// A TrainLoop says how TrainAll trains each run: to which step, what it
// writes on the way and how often it reports progress.
type TrainLoop struct {
	Model, Dataset  string // named in each run's opening line; Dataset is recorded in the checkpoints
	Steps           int    // the step every run trains to
	SampleEvery     int    // a sample grid every so many steps (0: only at the end)
	CheckpointEvery int    // the checkpoint every so many steps (0: only at the end)
	KeepCheckpoints bool   // keep checkpoint_<step>.safetensors too
	LogEvery        int    // a progress line every so many steps when log is not a terminal
}

// TrainAll trains the started runs (StartRuns, SetLater) on ds, one after
// the other, as l says: each prints an opening line and its summary
// (TrainRun.WriteSummary) on out, its progress and warnings on log; for
// several runs, the table of them all (WriteTrainTable) follows. A run at
// l.Steps already trains nothing. When ctx ends a run (Interruptible), the
// run writes its checkpoint, TrainAll says so on out and returns the
// run's error, which wraps gan.ErrInterrupted.
func TrainAll(ctx context.Context, runs []*TrainRun, ds *datasets.Set, l TrainLoop, out, log io.Writer) error {
	var sums []gan.Summary
	for _, r := range runs {
		sum, err := r.train(ctx, ds, l, out, log)
		if errors.Is(err, gan.ErrInterrupted) {
			if IsTerminal(log) {
				fmt.Fprintln(log) // end the progress bar's line
			}
			fmt.Fprintf(out, "%s: interrupted at step %d; wrote %s and %s\n", r.Label, sum.LastStep, sum.Checkpoint, sum.Samples)
			return err
		}
		if err != nil {
			return err
		}
		sums = append(sums, sum)
	}
	if len(runs) > 1 {
		return WriteTrainTable(out, runs, sums)
	}
	return nil
}

// train trains the run to l.Steps and prints its summary.
func (r *TrainRun) train(ctx context.Context, ds *datasets.Set, l TrainLoop, out, log io.Writer) (gan.Summary, error) {
	t := r.Trainer
	o := t.Options()
	start := t.Step()
	if start >= l.Steps {
		fmt.Fprintf(out, "%s: already at step %d of %d; nothing to do\n", r.Label, start, l.Steps)
		return r.Finished(), nil
	}
	verb := "training"
	if start > 0 {
		verb = fmt.Sprintf("resuming at step %d:", start)
	}
	fmt.Fprintf(out, "%s %s on %s (%d images %v) in %s: steps %d, batch %d, seed %d -> %s\n",
		verb, l.Model, l.Dataset, ds.Len(), ds.Shape(), r.Label, l.Steps, o.Batch, o.Seed, r.Dir)

	onStep := Progress(log, r.Label, t.LogColumns(), start, l.Steps, l.LogEvery, r.Later)
	sum, err := t.Run(ctx, gan.RunOptions{
		Dir: r.Dir, Steps: l.Steps, SampleEvery: l.SampleEvery, CheckpointEvery: l.CheckpointEvery,
		KeepCheckpoints: l.KeepCheckpoints, Meta: map[string]string{gan.MetaDataset: l.Dataset},
		OnStep: onStep,
		Warn:   func(msg string) { fmt.Fprintf(log, "\nWARNING: %s: %s\n", r.Label, msg) },
	})
	if err != nil {
		return sum, err
	}
	return sum, r.WriteSummary(out, sum)
}

// A TrainSettingError says which setting of a training is wrong, by the
// name TrainSettings.Given uses (positgan train's flag names: "steps",
// "batch", "bias-every", ...), with its value and why.
type TrainSettingError struct {
	Setting string
	Value   any // an int, or the float64 of "lr"
	Reason  string
}

func (e *TrainSettingError) Error() string {
	return fmt.Sprintf("experiment: %s %v: %s", e.Setting, e.Value, e.Reason)
}

// Check checks the settings of a training in the loop l (or for epochs
// epochs of the data instead of l.Steps, if not 0) before anything is
// loaded: the steps, batch and learning rate positive; the epochs, the
// intervals, image size and features not negative; 1 or 3 channels (0:
// the data's); image size and features within models.MaxSide and
// models.MaxFeatures. The first wrong one, in that order, is a
// *TrainSettingError.
func (s *TrainSettings) Check(l TrainLoop, epochs int) error {
	bad := func(setting string, v any, reason string) error {
		return &TrainSettingError{Setting: setting, Value: v, Reason: reason}
	}
	ints := []struct {
		name string
		v    int
		min  int
	}{{"steps", l.Steps, 1}, {"epochs", epochs, 0}, {"batch", s.Batch, 1}, {"sample-every", l.SampleEvery, 0},
		{"checkpoint-every", l.CheckpointEvery, 0}, {"log-every", l.LogEvery, 0}, {"bias-every", s.BiasEvery, 0}}
	for _, c := range ints {
		switch {
		case c.v < c.min && c.min == 1:
			return bad(c.name, c.v, "must be positive")
		case c.v < c.min:
			return bad(c.name, c.v, "must not be negative")
		}
	}
	switch {
	case !(s.LR > 0):
		return bad("lr", s.LR, "must be positive")
	case s.ImageSize < 0:
		return bad("image-size", s.ImageSize, "must not be negative")
	case s.Features < 0:
		return bad("features", s.Features, "must not be negative")
	case s.Channels != 0 && s.Channels != 1 && s.Channels != 3:
		return bad("channels", s.Channels, "want 1 or 3")
	case s.ImageSize > models.MaxSide:
		return bad("image-size", s.ImageSize, fmt.Sprintf("the limit is %d", models.MaxSide))
	case s.Features > models.MaxFeatures:
		return bad("features", s.Features, fmt.Sprintf("the limit is %d", models.MaxFeatures))
	}
	return nil
}
