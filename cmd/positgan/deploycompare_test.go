package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deploy-compare writes the table, the search and the grids of a
// float32 checkpoint, and prints the table.
func TestDeployCompare(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	run := filepath.Join(dir, "cgan")
	mustRun(t, "train", "--dataset", data, "--policy", "fp32", "--steps", "2", "--batch", "4", "--features", "2", "--out", run)
	out := filepath.Join(dir, "table")
	stdout := mustRun(t, "deploy-compare", "--checkpoint", filepath.Join(run, "checkpoint.safetensors"), "--dataset", data,
		"--out", out, "--bits", "4", "--n", "10", "--search-n", "4")
	for _, want := range []string{"| FP32 | float32 |", "| P4+T | `posit(4,0)`, tanh", "| FP4 e", "candidates searched"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"deploy.md", "deploy.csv", "search.csv", "fid.png", "grids.png", "grids/P8+.png"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}
}

func TestDeployCompareErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"deploy-compare", "--out", dir}, 2, "missing --checkpoint"},
		{[]string{"deploy-compare", "--checkpoint", "c"}, 2, "missing --out"},
		{[]string{"deploy-compare", "--checkpoint", "c", "--out", dir, "--bits", "6,8"}, 2, "--bits 6,8"},
		{[]string{"deploy-compare", "--checkpoint", "c", "--out", dir, "--bits", "six"}, 2, "--bits six"},
		{[]string{"deploy-compare", "--checkpoint", "c", "--out", dir, "--n", "1"}, 2, "--n 1"},
		{[]string{"deploy-compare", "--checkpoint", "c", "--out", dir, "--n", "0"}, 2, "--n 0"},
		{[]string{"deploy-compare", "--checkpoint", "c", "--out", dir, "--search-n", "0"}, 2, "--search-n 0"},
		{[]string{"deploy-compare", "--checkpoint", "c", "--out", dir, "--accum", "sideways"}, 2, "--accum sideways"},
		{[]string{"deploy-compare", "--checkpoint", filepath.Join(dir, "none"), "--out", dir}, 1, "no such file"},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != tc.code || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed runs left %d files", len(entries))
	}
}
