package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// The runs of several policies each get a folder of their own, one
// policy the folder itself; runs without a checkpoint may be continued
// only if one of them was started; a started run continues its
// checkpoint, and the runs before it count the steps it has left.
func TestTrainRuns(t *testing.T) {
	out := t.TempDir()
	ps, err := experiment.ParsePolicies([]string{"fp32", "posit8"})
	if err != nil {
		t.Fatal(err)
	}
	if one := experiment.TrainRuns(out, ps[:1]); one[0].Dir != out {
		t.Errorf("one policy: folder %s, want %s", one[0].Dir, out)
	}
	runs := experiment.TrainRuns(out, ps)
	if runs[1].Dir != filepath.Join(out, "posit8") || runs[1].Policy == nil {
		t.Fatalf("two policies: %+v", runs[1])
	}
	for _, r := range runs {
		if r.Checkpoint, err = experiment.LoadCheckpoint(r.Dir); err != nil || r.Checkpoint != nil {
			t.Fatalf("LoadCheckpoint of an empty folder: %v, %v", r.Checkpoint, err)
		}
	}
	var ne *experiment.NoCheckpointError
	if err := experiment.CheckResumable(runs); !errors.As(err, &ne) || len(ne.Paths) != 2 {
		t.Errorf("CheckResumable of no started run: %v", err)
	}

	c, cfg, _, ds := untrained(t) // posit8, batch 8
	if err := os.MkdirAll(runs[1].Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ckpt.Save(filepath.Join(runs[1].Dir, "checkpoint.safetensors"), c); err != nil {
		t.Fatal(err)
	}
	if runs[1].Checkpoint, err = experiment.LoadCheckpoint(runs[1].Dir); err != nil || runs[1].Checkpoint == nil {
		t.Fatalf("LoadCheckpoint: %v", err)
	}
	if err := experiment.CheckResumable(runs); err != nil {
		t.Errorf("CheckResumable with a started run: %v", err)
	}
	data := []datasets.Dataset{ds}
	for _, r := range runs {
		if err := r.Start(cfg, data, gan.Options{Batch: 8, Seed: 3, LR: 1e-3, Steps: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if runs[0].Trainer.Options().Policy.Name != "fp32" || runs[1].Trainer.Step() != 0 {
		t.Errorf("Start: policy %s, step %d", runs[0].Trainer.Options().Policy.Name, runs[1].Trainer.Step())
	}
	experiment.SetLater(runs, 5)
	if runs[0].Later != 5 || runs[1].Later != 0 {
		t.Errorf("SetLater: %d, %d; want 5, 0", runs[0].Later, runs[1].Later)
	}
	if sum := runs[1].Finished(); sum.Checkpoint != filepath.Join(runs[1].Dir, "checkpoint.safetensors") || len(sum.Updates) == 0 {
		t.Errorf("Finished: %+v", sum)
	}
}
