package experiment_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// A run that ends unhealthy (every update skipped: posit8+ with a static
// loss scale of 1e30) does not fail the table: it is measured at its last
// healthy checkpoint and shown on a row of its own, marked (issue 19 item
// 3, issue 15 item 4).
func TestCompareMarksUnhealthyRuns(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	pol := filepath.Join(dir, "skip.toml")
	if err := os.WriteFile(pol, []byte("name = \"skip\"\npreset = \"posit8+\"\n[loss_scale]\nscale = 1e30\ndynamic = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := tinySweep(data, filepath.Join(dir, "cmp"), 24)
	s.Policies, s.Seeds, s.CheckpointEvery = []string{"fp32", pol}, 1, 4
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var bad *experiment.Result
	for i, res := range tab.Results {
		if tab.Runs[i].Policy != "fp32" {
			bad = res
		} else if res.Status != "" {
			t.Errorf("fp32 run: status %q", res.Status)
		}
	}
	if bad == nil || bad.Status != gan.StatusSkipping || bad.GoodStep != 16 || !(bad.FID > 0) {
		t.Fatalf("unhealthy run: %+v", bad)
	}
	var md, runs bytes.Buffer
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteRunsCSV(&runs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(skipping: last healthy checkpoint)", "ended skipping; its row is measured at step 16"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(runs.String(), ",skipping,16,") || !strings.Contains(runs.String(), ",ok,24,") {
		t.Errorf("runs.csv:\n%s", runs.String())
	}
}
