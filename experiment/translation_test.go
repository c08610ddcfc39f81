package experiment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
)

// needMNISTFashion skips a test when Fashion-MNIST (Debian's
// dataset-fashion-mnist) is not installed.
func needMNISTFashion(t *testing.T) {
	t.Helper()
	if _, err := datasets.Load("fashion-mnist", datasets.Options{Split: datasets.Test}); err != nil {
		t.Skipf("no Fashion-MNIST: %v", err)
	}
}

// A CycleGAN sweep on the mnist-fashion toy tabulates the FID of both
// directions, each judged by the feature network of its target domain,
// through the model's Evaluator; run again, it measures nothing again.
func TestCompareCycleGAN(t *testing.T) {
	needMNISTFashion(t)
	out := t.TempDir()
	s := experiment.Sweep{Model: "cyclegan", Dataset: datasets.MNISTFashion, Policies: []string{"fp32", "posit8+"},
		Seeds: 1, FirstSeed: 1, Steps: 2, Batch: 2, LR: 2e-4, N: 20, EvalSeed: 1, Out: out}
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"FID A→B (LeNet-Fashion)", "FID B→A (LeNet-MNIST)"}
	if strings.Join(tab.Columns, "|") != strings.Join(cols, "|") {
		t.Errorf("columns %q, want %q", tab.Columns, cols)
	}
	for i, res := range tab.Results {
		if res == nil || len(res.Figures) != 2 || !(res.Figures[cols[0]] > 0) || !(res.Figures[cols[1]] > 0) || !(res.DLoss > 0) {
			t.Errorf("run %s: result %+v", tab.Runs[i], res)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"CYCLEGAN on mnist-fashion, 2 steps of batch 2 per run; FID per direction", "| posit8+ |"}, cols...) {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	runs, err := os.ReadFile(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(runs), "policy,seed,steps,"+strings.Join(cols, ",")+",d_loss,") {
		t.Errorf("runs.csv:\n%s", runs)
	}
	var res experiment.Result
	js, err := os.ReadFile(filepath.Join(out, "fp32", "seed1", experiment.ResultFile))
	if err != nil || json.Unmarshal(js, &res) != nil || res.Figures[cols[0]] != tab.Results[0].Figures[cols[0]] {
		t.Errorf("result.json (%v):\n%s", err, js)
	}
	for _, f := range []string{"fid.png", "grids.png", "grids/posit8+.png"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}

	var log bytes.Buffer
	s.Log = &log
	if _, err := experiment.Compare(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), ": done (FID A→B (LeNet-Fashion) ") != 2 {
		t.Errorf("log of the second sweep:\n%s", log.String())
	}
}

// The FID of a direction is measured by the feature network of the target
// domain; an unknown direction or a data set without a default network is
// an error.
func TestTranslationFeatures(t *testing.T) {
	for _, tc := range []struct {
		dataset, dir, want string
		err                bool
	}{
		{datasets.MNISTFashion, experiment.AtoB, "lenet-fashion", false},
		{datasets.MNISTFashion, experiment.BtoA, "lenet-mnist", false},
		{"horse2zebra", experiment.AtoB, "", true},
	} {
		got, err := experiment.TranslationFeatures(tc.dataset, tc.dir)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%s %s: %q, %v; want %q", tc.dataset, tc.dir, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, dir string }{{"AtoB", experiment.AtoB}, {"a2b", experiment.AtoB}, {"BA", experiment.BtoA}, {"up", ""}} {
		d, _, err := experiment.ParseDirection(tc.in)
		if d != tc.dir || (err != nil) != (tc.dir == "") {
			t.Errorf("ParseDirection(%q) = %q, %v", tc.in, d, err)
		}
	}
}
