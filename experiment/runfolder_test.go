package experiment_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/experiment"
)

func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A folder holds a run once it has a checkpoint or a log; the checkpoint
// is named first.
func TestRunIn(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "samples.png", experiment.RunConfigFile)
	if got := experiment.RunIn(dir); got != "" {
		t.Errorf("no checkpoint nor log: %q", got)
	}
	touch(t, dir, "log.csv")
	if got := experiment.RunIn(dir); got != filepath.Join(dir, "log.csv") {
		t.Errorf("a log: %q", got)
	}
	touch(t, dir, "checkpoint.safetensors")
	if got := experiment.RunIn(dir); got != filepath.Join(dir, "checkpoint.safetensors") {
		t.Errorf("a checkpoint and a log: %q", got)
	}
}

// RemoveRun removes the run's files and keeps the others.
func TestRemoveRun(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "checkpoint.safetensors", "checkpoint_100.safetensors", "log.csv", "samples.png", "samples_100.png",
		experiment.ResultFile, "losses.png", experiment.RunConfigFile, "notes.txt", "data.csv")
	if err := experiment.RemoveRun(dir); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range es {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{"data.csv", "notes.txt"}) {
		t.Errorf("left %q, want data.csv and notes.txt", left)
	}
}

// ClaimFolders removes a dead writer's temporary file, says so, calls
// then for each folder with it held, and on then's error releases the
// folders it took.
func TestClaimFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	touch(t, b, ".checkpoint.safetensors.tmp-3141592653") // an old writer's, with no pid
	var log bytes.Buffer
	var called []int
	release, err := experiment.ClaimFolders([]string{a, b}, &log, func(i int) error {
		called = append(called, i)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(called, []int{0, 1}) {
		t.Errorf("then called for %v, want 0 and 1", called)
	}
	if want := "removed 1 temporary files left by an interrupted write in " + b + "\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if _, err := os.Stat(filepath.Join(b, ".checkpoint.safetensors.tmp-3141592653")); err == nil {
		t.Error("temporary file left")
	}
	release()

	stop := errors.New("stop")
	if _, err := experiment.ClaimFolders([]string{a, b}, &log, func(i int) error {
		if i == 1 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Errorf("then's error: %v", err)
	}
	release, err = experiment.ClaimFolders([]string{a, b}, &log, nil)
	if err != nil {
		t.Fatalf("claimed again after an error: %v", err)
	}
	release()
	if _, err := experiment.ClaimFolders([]string{filepath.Join(a, "missing")}, &log, nil); err == nil ||
		!strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing folder: %v", err)
	}
}

func TestPolicyLabel(t *testing.T) {
	for arg, want := range map[string]string{
		"posit8+":                    "posit8+",
		"fp8-ibm":                    "fp8-ibm",
		"mine.toml":                  "mine",
		filepath.Join("p", "q.toml"): "q",
		filepath.Join("p", "q"):      "q",
	} {
		if got := experiment.PolicyLabel(arg); got != want {
			t.Errorf("PolicyLabel(%q) = %q, want %q", arg, got, want)
		}
	}
}
