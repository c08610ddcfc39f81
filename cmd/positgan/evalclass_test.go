package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// eval class-accuracy prints a row per class of a tiny CGAN, each a
// fraction of its --n images, then overall, their mean; a DCGAN is
// refused in one line, as is --n 0.
func TestEvalClassAccuracy(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	cg, dc := filepath.Join(dir, "cgan"), filepath.Join(dir, "dcgan")
	mustRun(t, "train", "--model", "cgan", "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--sample-every", "0", "--out", cg)
	out := mustRun(t, "eval", "class-accuracy", filepath.Join(cg, "checkpoint.safetensors"), "--n", "4")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 12 || lines[0] != "class,accuracy" {
		t.Fatalf("output %q, want a header, ten classes and overall", out)
	}
	var sum float64
	for k, line := range lines[1:] {
		name, val, _ := strings.Cut(line, ",")
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			t.Fatalf("row %q", line)
		}
		if k == 10 {
			if name != "overall" || math.Abs(v-sum/10) > 1e-12 {
				t.Errorf("row %q, want overall,%v", line, sum/10)
			}
			continue
		}
		if name != strconv.Itoa(k) || v*4 != math.Round(v*4) {
			t.Errorf("row %q, want class %d and a multiple of 1/4", line, k)
		}
		sum += v
	}

	mustRun(t, "train", "--model", "dcgan", "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--sample-every", "0", "--out", dc)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dc, "checkpoint.safetensors")}, "needs a conditional generator"},
		{[]string{filepath.Join(cg, "checkpoint.safetensors"), "--n", "0"}, "--n 0"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"eval", "class-accuracy"}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q, want one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// compare --metrics class-accuracy refuses an unconditional model in one
// line, before training.
func TestCompareClassAccuracyRefusesDCGAN(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 20)
	out := filepath.Join(dir, "cmp")
	_, stderr, code := runCLI(t, "", "compare", "--model", "dcgan", "--dataset", data, "--policies", "fp32", "--steps", "1",
		"--seeds", "1", "--n", "10", "--metrics", "fid,class-accuracy", "--out", out)
	if code == 0 || !strings.Contains(stderr, "dcgan is unconditional") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if exists(filepath.Join(out, "fp32")) {
		t.Error("a run was started")
	}
}
