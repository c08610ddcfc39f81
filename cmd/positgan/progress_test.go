package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAllRunsETA(t *testing.T) {
	for _, tc := range []struct {
		done, left, later int
		el                time.Duration
		want              string
	}{
		{10, 90, 100, 10 * time.Second, ", all 3m10s"}, // 1 s/step, 190 steps to go
		{10, 0, 50, 5 * time.Second, ", all 25s"},
		{10, 90, 0, 10 * time.Second, ""}, // the last run: its own eta says it
		{0, 100, 100, 0, ""},              // no pace yet
	} {
		if got := allRunsETA(tc.done, tc.left, tc.later, tc.el, ", all "); got != tc.want {
			t.Errorf("allRunsETA(%d, %d, %d, %v) = %q, want %q", tc.done, tc.left, tc.later, tc.el, got, tc.want)
		}
	}
}

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
