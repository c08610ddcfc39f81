package experiment_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/experiment"
)

// On a finished sweep, Metrics adds the columns of the metrics asked for
// by measuring the runs' checkpoints again, without training; the
// significance columns test every row against fp32; a result file
// written before fid_se and extra were recorded still reads.
func TestCompareMetricsOnFinishedSweep(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	s := tinySweep(data, out, 2)
	first, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range first.Results {
		if !(res.FIDStdErr > 0) || res.Extra != nil {
			t.Errorf("run %s: FID sampling error %v, extra %v", first.Runs[i], res.FIDStdErr, res.Extra)
		}
	}
	// An old result file: no fid_se, no extra.
	old := filepath.Join(out, "fp32", "seed1", experiment.ResultFile)
	data0, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data0, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "fid_se")
	js, _ := json.Marshal(m)
	if err := os.WriteFile(old, js, 0o644); err != nil {
		t.Fatal(err)
	}
	ckptTime := modTime(t, filepath.Join(out, "fp32", "seed1", "checkpoint.safetensors"))

	var log bytes.Buffer
	s.Metrics = []string{"fid", "prdc"}
	s.Log = &log
	s.Progress = func(r experiment.Run, _ int, _ []string) func(experiment.StepStats, time.Duration) {
		t.Errorf("%s trained again", r)
		return nil
	}
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "measured again for precision (LeNet-MNIST), recall (LeNet-MNIST)"); n != 4 {
		t.Errorf("%d runs measured again, want 4:\n%s", n, log.String())
	}
	if !modTime(t, filepath.Join(out, "fp32", "seed1", "checkpoint.safetensors")).Equal(ckptTime) {
		t.Error("checkpoint rewritten")
	}
	for i, res := range tab.Results {
		if res.FID != first.Results[i].FID || res.FIDStdErr != first.Results[i].FIDStdErr || len(res.Extra) != 4 {
			t.Errorf("run %s: %+v, first %+v", tab.Runs[i], res, first.Results[i])
		}
		for c, v := range res.Extra {
			if !(v >= 0) {
				t.Errorf("run %s: %s = %v", tab.Runs[i], c, v)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| s/step | precision (LeNet-MNIST) | recall (LeNet-MNIST) | density (LeNet-MNIST) | coverage (LeNet-MNIST) | p vs fp32 | 95% CI of difference | differs from fp32 |",
		"Significance of FID (LeNet-MNIST) against fp32", "FID sampling error of the runs"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	f, err := os.Open(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(rows[0], "s_per_step"); i != 11 || !slices.Equal(rows[0][i+1:], []string{"fid_se",
		"precision (LeNet-MNIST)", "recall (LeNet-MNIST)", "density (LeNet-MNIST)", "coverage (LeNet-MNIST)"}) || rows[1][i+1] == "" {
		t.Errorf("runs.csv:\n%q", rows)
	}

	// Again: nothing left to measure.
	log.Reset()
	if _, err := experiment.Compare(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "measured again") || strings.Count(log.String(), ": done (") != 4 {
		t.Errorf("third call:\n%s", log.String())
	}

	// Merged into another folder: the recorded figures, tested against
	// posit8, nothing measured.
	s.Baseline = "posit8"
	p, err := experiment.NewPlan(s, experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged")
	if _, err := experiment.Merge(p, []string{out}, merged); err != nil {
		t.Fatal(err)
	}
	if md, err := os.ReadFile(filepath.Join(merged, "results.md")); err != nil || !strings.Contains(string(md), "| coverage (LeNet-MNIST) | p vs posit8 |") {
		t.Errorf("merged results.md (%v):\n%s", err, md)
	}

	// One seed: no test, said so.
	var one bytes.Buffer
	tab.Results[1], tab.Results[3] = nil, nil
	if err := tab.WriteMarkdown(&one); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one.String(), "| – | – | – |") || !strings.Contains(one.String(), "Significance needs ≥ 2 seeds") {
		t.Errorf("one-seed table:\n%s", one.String())
	}
}

func TestSweepMetricsChecked(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		field string
		set   func(*experiment.Sweep)
	}{
		{"Metrics", func(s *experiment.Sweep) { s.Metrics = []string{"nosuch"} }},
		{"Metrics", func(s *experiment.Sweep) { s.Metrics = []string{"psnr"} }},
		{"Alpha", func(s *experiment.Sweep) { s.Alpha = 1 }},
	} {
		s := tinySweep(filepath.Join(dir, "data"), filepath.Join(dir, "out"), 2)
		tc.set(&s)
		_, err := experiment.Compare(context.Background(), s)
		var ce *experiment.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%s: %v", tc.field, err)
		}
	}
}
