package experiment_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// TrainAll trains every run into its folder and tabulates them; runs
// continued at their last step train nothing; an ended context
// interrupts the first run, which says so.
func TestTrainAll(t *testing.T) {
	_, cfg, _, ds := untrained(t)
	ps, err := experiment.ParsePolicies([]string{"fp32", "posit8"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	o := gan.Options{Batch: 8, Seed: 3, LR: 1e-3, Steps: 2}
	l := experiment.TrainLoop{Model: "cgan", Dataset: "idx", Steps: 2}
	start := func() []*experiment.TrainRun {
		t.Helper()
		runs := experiment.TrainRuns(out, ps)
		for _, r := range runs {
			if r.Checkpoint, err = experiment.LoadCheckpoint(r.Dir); err != nil {
				t.Fatal(err)
			}
		}
		if err := experiment.StartRuns(runs, cfg, []datasets.Dataset{ds}, o, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		experiment.SetLater(runs, l.Steps)
		return runs
	}
	var stdout bytes.Buffer
	if err := experiment.TrainAll(context.Background(), start(), ds, l, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"fp32", "posit8"} {
		if !strings.Contains(stdout.String(), "training cgan on idx (16 images") || !strings.Contains(stdout.String(), "in "+p+": steps 2, batch 8, seed 3") {
			t.Errorf("no opening line of %s in\n%s", p, stdout.String())
		}
		if _, err := os.Stat(filepath.Join(out, p, "checkpoint.safetensors")); err != nil {
			t.Errorf("run %s: %v", p, err)
		}
	}
	stdout.Reset()
	if err := experiment.TrainAll(context.Background(), start(), ds, l, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout.String(), "already at step 2 of 2; nothing to do"); n != 2 {
		t.Errorf("continued at the last step: %d runs say nothing to do, want 2:\n%s", n, stdout.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stdout.Reset()
	l.Steps = 4
	err = experiment.TrainAll(ctx, start(), ds, l, &stdout, &bytes.Buffer{})
	if !errors.Is(err, gan.ErrInterrupted) || !strings.HasPrefix(stdout.String(), "resuming at step 2:") ||
		!strings.Contains(stdout.String(), "fp32: interrupted at step") {
		t.Errorf("ended context: %v\n%s", err, stdout.String())
	}
}

// Check names the first wrong setting, with its value.
func TestTrainSettingsCheck(t *testing.T) {
	ok := func() (experiment.TrainSettings, experiment.TrainLoop) {
		return experiment.TrainSettings{Batch: 64, LR: 2e-4, Channels: 3}, experiment.TrainLoop{Steps: 10}
	}
	for _, c := range []struct {
		change  func(*experiment.TrainSettings, *experiment.TrainLoop)
		epochs  int
		setting string
		value   any
	}{
		{func(*experiment.TrainSettings, *experiment.TrainLoop) {}, 0, "", nil},
		{func(s *experiment.TrainSettings, l *experiment.TrainLoop) { l.Steps, s.Batch = 0, 0 }, 0, "steps", 0},
		{func(*experiment.TrainSettings, *experiment.TrainLoop) {}, -1, "epochs", -1},
		{func(s *experiment.TrainSettings, l *experiment.TrainLoop) { l.LogEvery, s.BiasEvery = -2, -1 }, 0, "log-every", -2},
		{func(s *experiment.TrainSettings, _ *experiment.TrainLoop) { s.LR = 0 }, 0, "lr", 0.0},
		{func(s *experiment.TrainSettings, _ *experiment.TrainLoop) { s.Channels = 2 }, 0, "channels", 2},
		{func(s *experiment.TrainSettings, _ *experiment.TrainLoop) { s.Features = 1025 }, 0, "features", 1025},
		{func(s *experiment.TrainSettings, _ *experiment.TrainLoop) { s.ImageSize, s.Features = 1025, -1 }, 0, "features", -1},
	} {
		s, l := ok()
		c.change(&s, &l)
		err := s.Check(l, c.epochs)
		var se *experiment.TrainSettingError
		if c.setting == "" && err != nil || c.setting != "" && (!errors.As(err, &se) || se.Setting != c.setting || se.Value != c.value) {
			t.Errorf("%+v %+v epochs %d: %v, want setting %q value %v", s, l, c.epochs, err, c.setting, c.value)
		}
	}
}
