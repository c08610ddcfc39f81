package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEvalKID runs eval kid on two small folders and wants three fields:
// the mean, the std over subsets and the name with the feature network;
// a statistics file is a usage error (KID needs the features).
func TestEvalKID(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for i, dir := range []string{a, b} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range 4 {
			writePNG(t, filepath.Join(dir, string(rune('a'+k))+".png"), 28, 28, i == 0 || k%2 == 0)
		}
	}
	out, stderr, code := runCLI(t, "", "eval", "kid", a, b, "--subsets", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f := strings.Split(strings.TrimSuffix(out, "\n"), "\t")
	if len(f) != 3 || f[2] != "KID (LeNet-MNIST)" {
		t.Fatalf("output %q, want mean, std and KID (LeNet-MNIST)", out)
	}
	for _, v := range f[:2] {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			t.Errorf("output %q: %v", out, err)
		}
	}
	if _, _, code := runCLI(t, "", "eval", "kid", "x.npz", b); code != 2 {
		t.Errorf("a statistics file: exit %d, want 2", code)
	}
}

// eval kid of a checkpoint measures --n images its generator makes
// (experiment.GeneratorFeatures), here against a folder.
func TestEvalKIDCheckpoint(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	mustRun(t, "train", "--dataset", writeIDX(t, dir, 16), "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2",
		"--sample-every", "0", "--out", run)
	imgs := filepath.Join(dir, "imgs")
	if err := os.MkdirAll(imgs, 0o755); err != nil {
		t.Fatal(err)
	}
	for k := range 4 {
		writePNG(t, filepath.Join(imgs, string(rune('a'+k))+".png"), 28, 28, true)
	}
	out, stderr, code := runCLI(t, "", "eval", "kid", filepath.Join(run, "checkpoint.safetensors"), imgs, "--n", "6", "--subsets", "2")
	if f := strings.Split(strings.TrimSuffix(out, "\n"), "\t"); code != 0 || len(f) != 3 || f[2] != "KID (LeNet-MNIST)" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
