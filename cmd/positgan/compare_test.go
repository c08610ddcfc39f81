package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeIDXSplits writes toy IDX train and test splits into dir (the test
// split is a copy of the training one) and returns dir.
func writeIDXSplits(t *testing.T, dir string, n int) string {
	t.Helper()
	writeIDX(t, mkdir(t, dir), n)
	for _, kind := range []string{"images-idx3", "labels-idx1"} {
		data, err := os.ReadFile(filepath.Join(dir, "train-"+kind+"-ubyte"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t10k-"+kind+"-ubyte"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func compareArgs(data, out string, steps string) []string {
	return []string{"compare", "--dataset", data, "--features", "lenet-mnist", "--policies", "fp32,posit8",
		"--seeds", "2", "--steps", steps, "--batch", "8", "--n", "30", "--checkpoint-every", "2", "--out", out}
}

func readRuns(t *testing.T, out string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// The command prints the table it writes to results.md, reports each run
// on stderr, and continued to more steps resumes its runs. (The sweep's
// behaviour itself is tested in package experiment.)
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")

	table, stderr, code := runCLI(t, "", compareArgs(data, out, "2")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"| fp32 |", "| posit8 |", "FID (LeNet-MNIST)", "over 2 seeds", "skipped updates", "s/step"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Count(table, "\n| ") != 3 { // header and two policies
		t.Errorf("table rows:\n%s", table)
	}
	for _, want := range []string{"reference: features", "[1/4] fp32 seed 1\n", "[4/4] posit8 seed 2: FID (LeNet-MNIST) "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, f := range []string{"results.md", "results.csv", "runs.csv", "fid.png", "grids/fp32.png", "grids/posit8.png", "grids.png",
		"fp32/seed1/result.json", "posit8/seed2/checkpoint.safetensors"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil || string(md) != table {
		t.Errorf("results.md differs from the printed table (%v)", err)
	}
	if runs := readRuns(t, out); len(runs) != 5 {
		t.Errorf("runs.csv:\n%q", runs)
	}

	// Again: every run is done; with more steps, every run resumes.
	_, stderr, code = runCLI(t, "", compareArgs(data, out, "2")...)
	if code != 0 || strings.Count(stderr, ": done (FID (LeNet-MNIST) ") != 4 {
		t.Errorf("repeated comparison: exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = runCLI(t, "", compareArgs(data, out, "3")...)
	if code != 0 || strings.Count(stderr, "resuming at step 2 of 3") != 4 {
		t.Errorf("continued comparison: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestCompareErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	mustRun(t, "compare", "--dataset", data, "--features", "lenet-mnist", "--policies", "fp32", "--seeds", "1",
		"--steps", "2", "--batch", "8", "--n", "20", "--out", out)
	noTest := filepath.Join(dir, "notest")
	writeIDX(t, mkdir(t, noTest), 40)
	base := []string{"compare", "--dataset", data, "--features", "lenet-mnist", "--batch", "8", "--n", "20", "--steps", "2"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--policies", "fp32,nosuch"}, 2, "nosuch"},
		{[]string{"--policies", "fp32,fp32"}, 2, "given twice"},
		{[]string{"--policies", "fp32,"}, 2, "empty policy"},
		{[]string{"--seeds", "0"}, 2, "--seeds 0"},
		{[]string{"--steps", "0"}, 2, "--steps 0"},
		{[]string{"--n", "1"}, 2, "--n 1"},
		{[]string{"--n", "41"}, 2, "only 40"},
		{[]string{"--model", "vae"}, 2, "--model"},
		{[]string{"--lr", "0"}, 2, "--lr 0"},
		{[]string{"--log-every", "-1"}, 2, "--log-every"},
		{[]string{"--features", "nosuch"}, 2, "--features"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"--dataset", filepath.Join(dir, "missing")}, 2, "--dataset"},
		{[]string{"--dataset", noTest}, 2, "test split"},
		{[]string{"--dataset", "fashionable", "--features", ""}, 2, "no default"},
		// out holds a fp32 run trained with seed 1 to step 2
		{[]string{"--out", out, "--policies", "fp32", "--seeds", "1", "--steps", "1"}, 2, "step 2 (past 1 steps)"},
		{[]string{"--out", out, "--policies", "fp32", "--seeds", "1", "--batch", "4"}, 2, "batch 8 (now 4)"},
		{[]string{"--out", filepath.Join(data, "train-images-idx3-ubyte"), "--policies", "fp32", "--seeds", "1"}, 1, "output folder"},
	} {
		args := append(append([]string(nil), base...), tc.args...)
		_, stderr, code := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// eval fid takes a checkpoint: its generator's images, drawn with --seed,
// have the same FID twice, and an FID of 0 against themselves.
func TestEvalFIDCheckpoint(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 40)
	run := filepath.Join(dir, "run")
	mustRun(t, "train", "--dataset", data, "--policy", "posit8", "--steps", "2", "--batch", "8", "--features", "4", "--out", run)
	ck := filepath.Join(run, "checkpoint.safetensors")
	fid := mustRun(t, "eval", "fid", ck, data, "--n", "30", "--features", "lenet-mnist")
	if !strings.HasSuffix(fid, "\tFID (LeNet-MNIST)\n") || fid == "0\tFID (LeNet-MNIST)\n" {
		t.Errorf("eval fid checkpoint data: %q", fid)
	}
	if again := mustRun(t, "eval", "fid", ck, data, "--n", "30", "--features", "lenet-mnist"); again != fid {
		t.Errorf("eval fid twice: %q then %q", fid, again)
	}
	if self := mustRun(t, "eval", "fid", ck, ck, "--n", "30"); !strings.HasPrefix(self, "0\t") && !strings.HasPrefix(self, "-") {
		var v float64
		if _, err := fmt.Sscan(self, &v); err != nil || v > 1e-6 {
			t.Errorf("eval fid of a checkpoint against itself: %q", self)
		}
	}
	other := mustRun(t, "eval", "fid", ck, data, "--n", "30", "--seed", "2", "--features", "lenet-mnist")
	if other == fid {
		t.Errorf("--seed 2 gave the FID of --seed 1: %q", fid)
	}
	stats := filepath.Join(dir, "gen.npz")
	mustRun(t, "eval", "stats", ck, "--out", stats, "--n", "30")
	if fromStats := mustRun(t, "eval", "fid", stats, data, "--n", "30"); fromStats[:strings.IndexByte(fromStats, '\t')] != fid[:strings.IndexByte(fid, '\t')] {
		t.Errorf("FID via stats %q, direct %q", fromStats, fid)
	}
	_, stderr, code := runCLI(t, "", "eval", "fid", filepath.Join(dir, "missing.safetensors"), data)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "missing.safetensors") {
		t.Errorf("missing checkpoint: exit %d, %q", code, stderr)
	}
}
