package experiment

// The runs of positgan train: one model trained in several policies on
// the same data, each run in its own folder, one after the other.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// A TrainRun is one policy's run of a training in several policies: its
// folder, the checkpoint it continues and its trainer.
type TrainRun struct {
	NamedPolicy
	Dir string
	// Checkpoint is the checkpoint the run continues (LoadCheckpoint of
	// Dir); nil: it starts from scratch.
	Checkpoint *ckpt.Checkpoint
	Trainer    *gan.Trainer // set by Start
	// Later is the number of steps the runs after this one still
	// train, for the ETA of them all (SetLater).
	Later int
}

// TrainRuns lays out the runs of the policies ps under out: out itself
// for one policy, out/<label> for each of several.
func TrainRuns(out string, ps []NamedPolicy) []*TrainRun {
	runs := make([]*TrainRun, len(ps))
	for i, p := range ps {
		runs[i] = &TrainRun{NamedPolicy: p, Dir: out}
		if len(ps) > 1 {
			runs[i].Dir = filepath.Join(out, p.Label)
		}
	}
	return runs
}

// LoadCheckpoint returns the checkpoint of the run folder dir, or nil if
// it has none.
func LoadCheckpoint(dir string) (*ckpt.Checkpoint, error) {
	c, err := ckpt.Load(filepath.Join(dir, checkpointFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// A NoCheckpointError says that none of the runs meant to continue was
// ever started: no checkpoint (Paths), nor any other file of a run.
type NoCheckpointError struct{ Paths []string }

func (e *NoCheckpointError) Error() string {
	return "experiment: no checkpoint " + strings.Join(e.Paths, ", ")
}

// CheckResumable is the check of continuing runs when those without a
// checkpoint would start from scratch (a run interrupted before its
// first checkpoint, or a policy not started yet): that is refused, with
// a *NoCheckpointError, only when no run was ever started (RunIn), which
// is a wrong folder rather than an interruption.
func CheckResumable(runs []*TrainRun) error {
	var paths []string
	for _, r := range runs {
		if r.Checkpoint != nil || RunIn(r.Dir) != "" {
			return nil
		}
		paths = append(paths, filepath.Join(r.Dir, checkpointFile))
	}
	return &NoCheckpointError{Paths: paths}
}

// Start builds the run's trainer on data (NewTrainer): continuing its
// Checkpoint, or a new model of configuration cfg trained with o in the
// run's policy.
func (r *TrainRun) Start(cfg models.Config, data []datasets.Dataset, o gan.Options) error {
	o.Policy = r.Policy
	t, err := NewTrainer(r.Checkpoint, cfg, data, o)
	if err != nil {
		return err
	}
	r.Trainer = t
	return nil
}

// Finished returns the summary of a started run that is at steps
// already, with nothing trained: where its samples and checkpoint are,
// and the names of its updates and metrics.
func (r *TrainRun) Finished() gan.Summary {
	t := r.Trainer
	sum := gan.Summary{FirstStep: t.Step(), LastStep: t.Step(), Samples: filepath.Join(r.Dir, "samples.png"),
		Checkpoint: filepath.Join(r.Dir, checkpointFile), Metrics: t.Model().Metrics()}
	for _, u := range t.Model().Updates() {
		sum.Updates = append(sum.Updates, u.Name)
	}
	return sum
}

// SetLater sets the Later of each started run: the steps the runs after
// it still train to steps.
func SetLater(runs []*TrainRun, steps int) {
	for i := len(runs) - 2; i >= 0; i-- {
		runs[i].Later = runs[i+1].Later + max(steps-runs[i+1].Trainer.Step(), 0)
	}
}
