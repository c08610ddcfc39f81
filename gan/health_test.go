package gan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
)

// A run whose state stops being finite stops with a DivergedError, logs
// the step as diverged, and keeps the last healthy checkpoint (finite,
// Adam's moments included) instead of saving the broken state (issue 15
// item 4).
func TestRunStopsOnDivergence(t *testing.T) {
	tr := newTrainer(t, tinyCGAN(), toyData(t, 32, 8, 1), gan.Options{Batch: 8, Seed: 5})
	dir := t.TempDir()
	if _, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 3, CheckpointEvery: 1}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"D", "G"} {
		tr.Adam(g).LR = 1e38 // the next updates overflow
	}
	var warned []string
	sum, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 20, CheckpointEvery: 1,
		Warn: func(m string) { warned = append(warned, m) }})
	d, ok := gan.IsDiverged(err)
	if !ok {
		t.Fatalf("Run: %v, want a DivergedError", err)
	}
	if d.LastGood < 3 || d.LastGood >= d.Step || sum.LastHealthy != d.LastGood || sum.Status != gan.StatusDiverged {
		t.Errorf("diverged at %d keeping %d; summary: status %s, last healthy %d", d.Step, d.LastGood, sum.Status, sum.LastHealthy)
	}
	if len(warned) == 0 || !strings.Contains(warned[len(warned)-1], "diverged") {
		t.Errorf("warnings %q: want the divergence", warned)
	}
	ck, err := ckpt.Load(filepath.Join(dir, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := gan.ReadState(ck); s.Step != d.LastGood {
		t.Errorf("checkpoint at step %d, want the last healthy %d", s.Step, d.LastGood)
	}
	for name, ten := range ck.Tensors {
		for _, v := range ten.Data {
			if v-v != 0 {
				t.Fatalf("kept checkpoint: %s holds %v", name, v)
			}
		}
	}
	rows, err := gan.ReadLog(sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	if last := rows[len(rows)-1]; last.Step != d.Step || last.Status != gan.StatusDiverged || rows[0].Status != gan.StatusOK {
		t.Errorf("log: first status %q, last row step %d status %q; want ok ... step %d diverged", rows[0].Status, last.Step, last.Status, d.Step)
	}
}

// A run whose updates are all skipped (a static loss scale of 1e30
// saturates every error of posit8+) trains to the end but says so: the warning,
// the status column and the summary; the checkpoint taken during the
// alarm goes to checkpoint_unhealthy.safetensors.
func TestRunWarnsWhenUpdatesAreSkipped(t *testing.T) {
	pol := mustPolicy(t, "posit8+")
	pol.LossScale = policy.LossScale{Scale: 1e30}
	tr := newTrainer(t, tinyCGAN(), toyData(t, 32, 8, 1), gan.Options{Policy: pol, Batch: 8, Seed: 5})
	dir := t.TempDir()
	var warned []string
	sum, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 30, CheckpointEvery: 5,
		Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != gan.StatusSkipping || len(sum.Warnings) == 0 || len(warned) != len(sum.Warnings) ||
		!strings.Contains(warned[0], "skipped") {
		t.Fatalf("status %q, warnings %q (shown %q)", sum.Status, sum.Warnings, warned)
	}
	if sum.LastHealthy != 15 || sum.Unhealthy == "" {
		t.Errorf("last healthy checkpoint at %d (want 15, before the alarm at step 20), unhealthy %q", sum.LastHealthy, sum.Unhealthy)
	}
	for _, f := range []string{sum.Checkpoint, sum.Unhealthy} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	rows, err := gan.ReadLog(sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	if rows[18].Status != gan.StatusOK || rows[19].Status != gan.StatusSkipping || rows[29].Status != gan.StatusSkipping {
		t.Errorf("status column: step 19 %q, 20 %q, 30 %q", rows[18].Status, rows[19].Status, rows[29].Status)
	}
}

// A generator whose images are all the same (an unconditional one with
// its weights zeroed: the output is the same for every noise, and stays
// so) raises the collapse alarm at the first sample grid.
func TestRunWarnsWhenGeneratorCollapses(t *testing.T) {
	tr := newTrainer(t, tinyDCGAN(), toyData(t, 32, 8, 1), gan.Options{Batch: 8, Seed: 5})
	for _, p := range tr.Nets().Net("G").Params() {
		clear(p.Data())
	}
	var warned []string
	sum, err := tr.Run(context.Background(), gan.RunOptions{Dir: t.TempDir(), Steps: 4, SampleEvery: 2, CheckpointEvery: 2,
		Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != gan.StatusCollapsed || len(warned) != 1 || !strings.Contains(warned[0], "collapsed") || sum.Unhealthy == "" {
		t.Errorf("status %q, warnings %q, unhealthy checkpoint %q", sum.Status, warned, sum.Unhealthy)
	}
	// A healthy generator raises no alarm.
	tr = newTrainer(t, tinyDCGAN(), toyData(t, 32, 8, 1), gan.Options{Batch: 8, Seed: 5})
	if sum, err = tr.Run(context.Background(), gan.RunOptions{Dir: t.TempDir(), Steps: 4, SampleEvery: 2}); err != nil || sum.Status != gan.StatusOK {
		t.Errorf("healthy run: status %q, %v", sum.Status, err)
	}
}
