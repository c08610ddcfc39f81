package experiment_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/internal/runlock"
)

// Two processes sharing a sweep's folder each train the runs they claim:
// a run whose folder another process holds is left to it (a *RunError
// wrapping ErrBusy once the rest are done), and the next Compare finishes
// it, removing what killed writers left in its folder.
func TestCompareClaimsRuns(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	s := tinySweep(data, out, 2)
	s.Policies = []string{"fp32"}
	held := filepath.Join(out, "fp32", "seed2")
	if err := os.MkdirAll(held, 0o755); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(held, ".checkpoint.safetensors.tmp-2718281828")
	os.WriteFile(leftover, []byte("partial"), 0o644)
	l, err := runlock.Acquire(held)
	if err != nil {
		t.Fatal(err)
	}
	_, err = experiment.Compare(context.Background(), s)
	var re *experiment.RunError
	if !errors.As(err, &re) || !errors.Is(err, experiment.ErrBusy) || re.Run.Seed != 2 {
		t.Fatalf("Compare with seed 2 held elsewhere: %v", err)
	}
	if !exists(filepath.Join(out, "fp32", "seed1", experiment.ResultFile)) {
		t.Error("seed 1 was not measured")
	}
	if exists(filepath.Join(held, "log.csv")) || !exists(leftover) {
		t.Error("Compare wrote into a folder another process held")
	}
	l.Release()
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Results[1] == nil || exists(leftover) {
		t.Errorf("second Compare: result %v, leftover removed %v", tab.Results[1], !exists(leftover))
	}
}
