package experiment_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/gan"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
)

// writeIDXSplits writes n toy 28×28 MNIST-like images (class i mod 10, a
// bright column band per class) as IDX train and test splits into dir.
func writeIDXSplits(t *testing.T, dir string, n int) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var im, lb bytes.Buffer
	binary.Write(&im, binary.BigEndian, []uint32{0x803, uint32(n), 28, 28})
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, uint32(n)})
	for i := range n {
		c := i % 10
		lb.WriteByte(byte(c))
		for y := range 28 {
			for x := range 28 {
				v := byte((x * y * (i + 1)) % 50)
				if x/3 == c {
					v = 250
				}
				im.WriteByte(v)
			}
		}
	}
	for _, split := range []string{"train", "t10k"} {
		if err := os.WriteFile(filepath.Join(dir, split+"-images-idx3-ubyte"), im.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, split+"-labels-idx1-ubyte"), lb.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tinySweep is a sweep of two policies over two seeds, short enough for a
// test.
func tinySweep(data, out string, steps int) experiment.Sweep {
	return experiment.Sweep{Model: "cgan", Dataset: data, Policies: []string{"fp32", "posit8"},
		Seeds: 2, FirstSeed: 1, Steps: steps, Batch: 8, LR: 2e-4, CheckpointEvery: 2,
		N: 30, EvalSeed: 1, Features: "lenet-mnist", Out: out}
}

func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A tiny sweep writes its table, chart and grids; run again after one
// run's result is deleted, it measures only that run again (and gets the
// same FID); continued to more steps, its runs resume from their
// checkpoints and end where a sweep trained straight there ends.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")

	var starts []string
	steps := 0
	s := tinySweep(data, out, 2)
	s.Progress = func(r experiment.Run, start int, _ []string) func(experiment.StepStats, time.Duration) {
		starts = append(starts, r.String())
		return func(experiment.StepStats, time.Duration) { steps++ }
	}
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(starts, ", ") != "fp32 seed 1, fp32 seed 2, posit8 seed 1, posit8 seed 2" || steps != 8 {
		t.Errorf("progress: runs %q, %d steps; want the four runs and 8 steps", starts, steps)
	}
	if tab.Metric != "FID (LeNet-MNIST)" || len(tab.Runs) != 4 || tab.Runs[2].Policy != "posit8" || tab.Runs[2].Seed != 1 ||
		tab.Runs[2].Dir != filepath.Join(out, "posit8", "seed1") {
		t.Errorf("table: metric %q, runs %v", tab.Metric, tab.Runs)
	}
	for i, res := range tab.Results {
		if res == nil || res.Steps != 2 || !(res.FID > 0) || !(res.SPerStep > 0) || res.Policy != tab.Runs[i].Policy {
			t.Errorf("run %s: result %+v", tab.Runs[i], res)
		}
	}
	sum := tab.Summary()
	if len(sum) != 10 || sum[0].Policy != "fp32" || sum[0].Metric != tab.Metric || len(sum[0].Values) != 2 || sum[5].Policy != "posit8" {
		t.Errorf("summary: %+v", sum)
	}
	var md bytes.Buffer
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	table := md.String()
	for _, want := range []string{"CGAN on " + data + ", 2 steps of batch 8", "| fp32 |", "| posit8 |", "over 2 seeds", "skipped updates", "s/step"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for _, f := range []string{"results.md", "results.csv", "runs.csv", "fid.png", "grids/fp32.png", "grids/posit8.png", "grids.png",
		"fp32/seed1/result.json", "fp32/seed2/checkpoint.safetensors", "posit8/seed2/log.csv", "posit8/seed1/samples.png",
		"reference_lenet-mnist_n30_seed1.npz"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "results.md")); err != nil || string(b) != table {
		t.Errorf("results.md differs from WriteMarkdown (%v)", err)
	}
	var runs bytes.Buffer
	if err := tab.WriteRunsCSV(&runs); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "runs.csv")); err != nil || string(b) != runs.String() || strings.Count(runs.String(), "\n") != 5 {
		t.Errorf("runs.csv (%v):\n%s", err, b)
	}

	// Delete one result: only that run is evaluated again, not retrained.
	results := map[string]time.Time{}
	for _, r := range []string{"fp32/seed1", "fp32/seed2", "posit8/seed1", "posit8/seed2"} {
		results[r] = modTime(t, filepath.Join(out, r, experiment.ResultFile))
	}
	ckptTime := modTime(t, filepath.Join(out, "posit8/seed1/checkpoint.safetensors"))
	time.Sleep(20 * time.Millisecond) // let modification times tell
	if err := os.Remove(filepath.Join(out, "posit8/seed1", experiment.ResultFile)); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	s = tinySweep(data, out, 2)
	s.Log = &log
	again, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), ": done (") != 3 || strings.Contains(log.String(), "reference:") {
		t.Errorf("log of the second sweep:\n%s", log.String())
	}
	for r, mt := range results {
		changed := !modTime(t, filepath.Join(out, r, experiment.ResultFile)).Equal(mt)
		if changed != (r == "posit8/seed1") {
			t.Errorf("%s: result rewritten %v", r, changed)
		}
	}
	if !modTime(t, filepath.Join(out, "posit8/seed1/checkpoint.safetensors")).Equal(ckptTime) {
		t.Error("posit8/seed1 was trained again")
	}
	if !reflect.DeepEqual(again.Results[2], tab.Results[2]) {
		t.Errorf("posit8 seed 1 measured again: %+v, first time %+v", again.Results[2], tab.Results[2])
	}

	// More steps: every run resumes at step 2 and matches a straight run.
	log.Reset()
	s = tinySweep(data, out, 4)
	s.Log = &log
	resumed, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), "resuming at step 2 of 4") != 4 {
		t.Errorf("continued sweep, log:\n%s", log.String())
	}
	straight, err := experiment.Compare(context.Background(), tinySweep(data, filepath.Join(dir, "straight"), 4))
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range resumed.Results {
		b := straight.Results[i]
		if a.FID != b.FID || a.DLoss != b.DLoss || a.GLoss != b.GLoss {
			t.Errorf("%s: resumed FID, D, G loss %v %v %v, straight %v %v %v", resumed.Runs[i], a.FID, a.DLoss, a.GLoss, b.FID, b.DLoss, b.GLoss)
		}
	}

	// A run's FID is GeneratorStats of its checkpoint against the reference.
	c, err := ckpt.Load(filepath.Join(out, "fp32/seed2/checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	ext, err := featnet.Load("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	st, err := experiment.GeneratorStats(c, ext, 30, 1, 100, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := eval.ReadStats(filepath.Join(out, "reference_lenet-mnist_n30_seed1.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if fid, err := eval.FrechetDistance(st, ref); err != nil || fid != resumed.Results[1].FID {
		t.Errorf("FID of GeneratorStats %v (%v), the sweep's %v", fid, err, resumed.Results[1].FID)
	}
}

// Invalid sweeps fail with a *ConfigError naming the field, before
// anything is trained.
func TestCompareConfigErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	one := func(s experiment.Sweep) experiment.Sweep {
		s.Policies, s.Seeds, s.Out = []string{"fp32"}, 1, out
		return s
	}
	if _, err := experiment.Compare(context.Background(), one(tinySweep(data, out, 2))); err != nil {
		t.Fatal(err)
	}
	noTest := filepath.Join(dir, "notest")
	writeIDXSplits(t, noTest, 40)
	os.Remove(filepath.Join(noTest, "t10k-images-idx3-ubyte"))
	for _, tc := range []struct {
		name  string
		edit  func(*experiment.Sweep)
		field string
		want  string
	}{
		{"unknown policy", func(s *experiment.Sweep) { s.Policies = []string{"fp32", "nosuch"} }, "Policies", "nosuch"},
		{"policy twice", func(s *experiment.Sweep) { s.Policies = []string{"fp32", "fp32"} }, "Policies", "given twice"},
		{"empty policy", func(s *experiment.Sweep) { s.Policies = []string{"fp32", ""} }, "Policies", "empty policy"},
		{"no policies", func(s *experiment.Sweep) { s.Policies = nil }, "Policies", "none"},
		{"no seeds", func(s *experiment.Sweep) { s.Seeds = 0 }, "Seeds", "must be positive"},
		{"no steps", func(s *experiment.Sweep) { s.Steps = 0 }, "Steps", "must be positive"},
		{"one image", func(s *experiment.Sweep) { s.N = 1 }, "N", "at least 2"},
		{"n past the test split", func(s *experiment.Sweep) { s.N = 41 }, "N", "only 40"},
		{"no batch", func(s *experiment.Sweep) { s.Batch = 0 }, "Batch", "must be positive"},
		{"batch past the data", func(s *experiment.Sweep) { s.Batch = 41 }, "Batch", "only 40"},
		{"no lr", func(s *experiment.Sweep) { s.LR = 0 }, "LR", "must be positive"},
		{"model", func(s *experiment.Sweep) { s.Model = "vae" }, "Model", "want one of cgan, dcgan"},
		{"features", func(s *experiment.Sweep) { s.Features = "nosuch" }, "Features", "nosuch"},
		{"no default features", func(s *experiment.Sweep) { s.Dataset, s.Features = "fashionable", "" }, "Features", "no default"},
		{"missing data", func(s *experiment.Sweep) { s.Dataset = filepath.Join(dir, "missing") }, "Dataset", "missing"},
		{"no test split", func(s *experiment.Sweep) { s.Dataset = noTest }, "Dataset", "test split"},
		{"no folder", func(s *experiment.Sweep) { s.Out = "" }, "Out", "empty"},
		// out holds a fp32 run trained with seed 1 to step 2, batch 8
		{"past steps", func(s *experiment.Sweep) { *s = one(*s); s.Steps = 1 }, "Out", "step 2 (past 1 steps)"},
		{"other batch", func(s *experiment.Sweep) { *s = one(*s); s.Batch = 4 }, "Out", "batch 8 (now 4)"},
	} {
		s := tinySweep(data, filepath.Join(dir, "fresh"), 2)
		s.Steps = 2
		tc.edit(&s)
		if tc.field == "" {
			continue
		}
		_, err := experiment.Compare(context.Background(), s)
		var ce *experiment.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a *ConfigError for %s containing %q", tc.name, err, tc.field, tc.want)
		}
	}
	if exists(filepath.Join(dir, "fresh")) {
		t.Error("an invalid sweep made its folder")
	}

	// Not a configuration error: the folder cannot be made.
	s := tinySweep(data, filepath.Join(data, "train-images-idx3-ubyte"), 2)
	_, err := experiment.Compare(context.Background(), s)
	var ce *experiment.ConfigError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "output folder") {
		t.Errorf("folder under a file: %v", err)
	}
}

// A cancelled sweep stops with its checkpoint written, and the same
// sweep continues it.
func TestCompareInterrupted(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	ctx, cancel := context.WithCancel(context.Background())
	s := tinySweep(data, out, 3)
	s.Policies, s.Seeds = []string{"fp32"}, 1
	s.Progress = func(experiment.Run, int, []string) func(experiment.StepStats, time.Duration) {
		return func(st experiment.StepStats, _ time.Duration) {
			if st.Step == 1 {
				cancel()
			}
		}
	}
	_, err := experiment.Compare(ctx, s)
	var re *experiment.RunError
	if !errors.As(err, &re) || re.Run.String() != "fp32 seed 1" || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("cancelled sweep: %v; want a *RunError of fp32 seed 1, interrupted", err)
	}
	var log bytes.Buffer
	s.Progress, s.Log = nil, &log
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil || !strings.Contains(log.String(), "resuming at step 1 of 3") || tab.Results[0].Steps != 3 {
		t.Errorf("continued: %v, log:\n%s", err, log.String())
	}
}
