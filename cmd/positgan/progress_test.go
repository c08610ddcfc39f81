package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The progress lines of a train of several policies show the ETA of all
// of them, but for the last policy's.
func TestTrainAllRunsETA(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 40)
	_, stderr, code := runCLI(t, "", "train", "--dataset", data, "--policy", "fp32,posit8+", "--batch", "8", "--features", "4",
		"--steps", "2", "--sample-every", "0", "--log-every", "1", "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var first, last int
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(line, "fp32 step"):
			first++
			if !strings.Contains(line, ", all runs ") {
				t.Errorf("first run's line without the ETA of all runs: %q", line)
			}
		case strings.HasPrefix(line, "posit8+ step"):
			last++
			if strings.Contains(line, "all runs") {
				t.Errorf("last run's line with an ETA of all runs: %q", line)
			}
		}
	}
	if first != 2 || last != 2 {
		t.Errorf("%d and %d progress lines, want 2 and 2:\n%s", first, last, stderr)
	}
}
