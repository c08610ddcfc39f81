package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/positgan/positgan/experiment"
)

// Off a terminal, Progress writes LogProgress's lines and no bar.
func TestProgressNotTerminal(t *testing.T) {
	var got, want bytes.Buffer
	cols := []string{"loss_d", "loss_g"}
	p := experiment.Progress(&got, "fp32", cols, 0, 4, 2, 0)
	l := experiment.LogProgress(&want, "fp32", cols, 0, 4, 2, 0)
	for step := 1; step <= 4; step++ {
		st := experiment.StepStats{Step: step, Losses: []float64{0.5, 1.25}}
		p(st, time.Duration(step)*time.Second)
		l(st, time.Duration(step)*time.Second)
	}
	if got.String() != want.String() || got.Len() == 0 {
		t.Errorf("Progress wrote %q; LogProgress %q", got.String(), want.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if experiment.IsTerminal(&got) || experiment.IsTerminal(f) {
		t.Error("IsTerminal: a buffer or a regular file is a terminal")
	}
}
