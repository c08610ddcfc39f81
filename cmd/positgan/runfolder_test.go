package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/internal/runlock"
)

func trainArgs(data, out string, more ...string) []string {
	return append([]string{"train", "--model", "cgan", "--dataset", data, "--steps", "2", "--batch", "4", "--features", "2",
		"--sample-every", "0", "--out", out}, more...)
}

// oneLine checks that a failed command printed one line on stderr.
func oneLine(t *testing.T, stderr string) {
	t.Helper()
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
		t.Errorf("error of %d lines: %s", n+1, stderr)
	}
}

// Issue 15: two train runs into the same --out at once both exited 0 and
// interleaved. The second now stops with a clear error naming the owner.
func TestTrainSecondWriter(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := filepath.Join(dir, "run")
	os.MkdirAll(out, 0o755)
	l, err := runlock.Acquire(out) // another writer holds the folder
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", trainArgs(data, out, "--policy", "fp32")...)
	if code == 0 || !strings.Contains(stderr, "in use by process "+strconv.Itoa(os.Getpid())) {
		t.Errorf("second writer: exit %d, stderr %q", code, stderr)
	}
	oneLine(t, stderr)
	if exists(filepath.Join(out, "log.csv")) || exists(filepath.Join(out, "checkpoint.safetensors")) {
		t.Error("the second writer wrote into the folder")
	}
	l.Release()
	mustRun(t, trainArgs(data, out, "--policy", "fp32")...)
	if exists(filepath.Join(out, runlock.FileName)) {
		t.Error("lock file left after the run")
	}
}

// Issue 15: train into a folder holding a finished run silently replaced
// its checkpoint and log. Now that needs --overwrite (or --resume).
func TestTrainExistingRun(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := filepath.Join(dir, "run")
	mustRun(t, trainArgs(data, out, "--policy", "fp32", "--keep-checkpoints", "--checkpoint-every", "1")...)
	before, _ := os.ReadFile(filepath.Join(out, "checkpoint.safetensors"))
	_, stderr, code := runCLI(t, "", trainArgs(data, out, "--policy", "fp32", "--seed", "7")...)
	if code != 2 || !strings.Contains(stderr, "--resume") || !strings.Contains(stderr, "--overwrite") {
		t.Errorf("train over a finished run: exit %d, stderr %q", code, stderr)
	}
	oneLine(t, stderr)
	if after, _ := os.ReadFile(filepath.Join(out, "checkpoint.safetensors")); string(after) != string(before) {
		t.Error("the finished run's checkpoint changed")
	}
	if _, stderr, code := runCLI(t, "", trainArgs(data, out, "--policy", "fp32", "--resume", "--overwrite")...); code != 2 {
		t.Errorf("--resume --overwrite: exit %d, stderr %q", code, stderr)
	}
	mustRun(t, trainArgs(data, out, "--policy", "fp32", "--seed", "7", "--steps", "1", "--overwrite")...)
	if after, _ := os.ReadFile(filepath.Join(out, "checkpoint.safetensors")); string(after) == string(before) {
		t.Error("--overwrite kept the old checkpoint")
	}
	if exists(filepath.Join(out, "checkpoint_000002.safetensors")) {
		t.Error("--overwrite kept a checkpoint of the old run")
	}
}

// Issue 15: Ctrl-C during the first policy of a two-policy run said
// "continue with --resume", but --resume failed because the second policy
// had no checkpoint. Policies not started yet now start, in the settings
// of the resumed ones, and reach what a run from scratch reaches.
func TestTrainResumeUnstartedPolicy(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := filepath.Join(dir, "run")
	mustRun(t, trainArgs(data, out, "--policy", "fp32,posit8", "--seed", "5")...)
	os.RemoveAll(filepath.Join(out, "posit8")) // as if interrupted during fp32
	mustRun(t, trainArgs(data, out, "--policy", "fp32,posit8", "--resume", "--steps", "3")...)
	ref := filepath.Join(dir, "ref")
	mustRun(t, trainArgs(data, ref, "--policy", "posit8", "--seed", "5", "--steps", "3")...)
	a, err := ckpt.Load(filepath.Join(out, "posit8", "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ckpt.Load(filepath.Join(ref, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Tensors, b.Tensors) {
		t.Error("the policy started by --resume differs from a run from scratch")
	}
	// Nothing started at all: --resume names the missing checkpoints.
	_, stderr, code := runCLI(t, "", trainArgs(data, filepath.Join(dir, "none"), "--policy", "fp32,posit8", "--resume")...)
	if code == 0 || !strings.Contains(stderr, "no checkpoint") {
		t.Errorf("--resume of nothing: exit %d, stderr %q", code, stderr)
	}
}

// Issue 15: --image-size 5000 and --features 100000 crashed with stack
// traces; they are usage errors now.
func TestTrainSizeLimits(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	for _, args := range [][]string{{"--image-size", "5000"}, {"--features", "100000"}} {
		a := append([]string{"train", "--dataset", data, "--out", filepath.Join(dir, "run")}, args...)
		_, stderr, code := runCLI(t, "", a...)
		if code != 2 || !strings.Contains(stderr, "limit") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		oneLine(t, stderr)
	}
}

// Issue 15: kill -9 during a write left .checkpoint.safetensors.tmp-*
// files that nothing removed. The next run in the folder removes them.
func TestTrainRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := filepath.Join(dir, "run")
	mustRun(t, trainArgs(data, out, "--policy", "fp32")...)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	left := []string{".checkpoint.safetensors.tmp-" + dead + "-1", ".log.csv.tmp-" + dead + "-2", ".checkpoint.safetensors.tmp-3141592653"}
	for _, n := range left {
		os.WriteFile(filepath.Join(out, n), make([]byte, 1000), 0o644)
	}
	mustRun(t, trainArgs(data, out, "--policy", "fp32", "--resume", "--steps", "3")...)
	for _, n := range left {
		if exists(filepath.Join(out, n)) {
			t.Errorf("%s left", n)
		}
	}
}

// Issue 15: --resume --lr 10 silently kept the checkpoint's rate. A rate
// that differs is reported like the other mismatches.
func TestTrainResumeLR(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := filepath.Join(dir, "run")
	mustRun(t, trainArgs(data, out, "--policy", "fp32")...)
	_, stderr, code := runCLI(t, "", trainArgs(data, out, "--policy", "fp32", "--resume", "--steps", "3", "--lr", "10")...)
	if code != 2 || !strings.Contains(stderr, "--lr 10 (checkpoint: 0.0002)") {
		t.Errorf("--resume --lr 10: exit %d, stderr %q", code, stderr)
	}
	mustRun(t, trainArgs(data, out, "--policy", "fp32", "--resume", "--steps", "3", "--lr", "2e-4")...)
}
