package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzPlan: any plan file is read into a plan or refused, never a panic;
// a plan it reads lays its runs out inside its output root and writes
// back to a file that reads as the same plan (issue 29 item 9).
func FuzzPlan(f *testing.F) {
	s := Sweep{Model: "cgan", Dataset: "mnist", Policies: []string{"fp32", "posit8"}, Seeds: 2, FirstSeed: 1,
		Steps: 2, Batch: 4, LR: 2e-4, N: 10, EvalSeed: 1, Out: "out"}
	if p, err := NewPlan(s, DefaultResources); err == nil {
		if b, err := json.Marshal(p); err == nil {
			f.Add(b)
			f.Add(bytes.Replace(b, []byte(`"fp32"`), []byte(`"../../x"`), -1))
			f.Add(bytes.Replace(b, []byte(`"seeds": 2`), []byte(`"seeds": 100000000`), 1))
		}
	}
	f.Add([]byte(`{"positgan_plan": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Plan
		if json.Unmarshal(data, &p) != nil {
			return
		}
		runs, err := p.runsIn("root")
		if err != nil {
			return
		}
		for _, r := range runs {
			rel, err := filepath.Rel("root", r.Dir)
			if err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
				t.Fatalf("run folder %q is outside the output root", r.Dir)
			}
		}
		b, err := json.Marshal(&p)
		if err != nil {
			t.Fatalf("a plan read does not write: %v", err)
		}
		var q Plan
		if err := json.Unmarshal(b, &q); err != nil || !q.Equal(&p) {
			t.Fatalf("a plan written back reads as another: %v", err)
		}
	})
}

// FuzzResult: any result.json is read or ignored, and a table of what is
// read is written, never a panic.
func FuzzResult(f *testing.F) {
	f.Add([]byte(`{"policy":"fp32","seed":1,"steps":2,"fid":1.5,"d_loss":1,"g_loss":1,"s_per_step":0.1}`))
	f.Add([]byte(`{"policy":"fp32","seed":1,"fid":1e308,"skipped_d":-5,"status":"diverged","good_step":-1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := &Sweep{Model: "cgan", Dataset: "mnist", Policies: []string{"fp32"}, Seeds: 1, FirstSeed: 1, Steps: 2, N: 10, Out: dir}
		r := Run{Policy: "fp32", Seed: 1, Dir: dir}
		res, _ := readResult(s, r, "FID (LeNet-MNIST)")
		if res == nil {
			return
		}
		tab := &Table{Sweep: *s, Metric: "FID (LeNet-MNIST)", Runs: []Run{r}, Results: []*Result{res}, channels: 1}
		var b bytes.Buffer
		tab.WriteMarkdown(&b)
		tab.WriteCSV(&b)
		tab.WriteRunsCSV(&b)
	})
}
