package experiment_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
)

// oldPlan is a plan file as positgan wrote it before sweeps had model
// options: it has no "options" key.
const oldPlan = `{
  "positgan_plan": 1,
  "sweep": {
    "model": "cgan",
    "dataset": "mnist",
    "policies": [
      "fp32"
    ],
    "seeds": 1,
    "first_seed": 1,
    "steps": 2,
    "batch": 8,
    "lr": 0.0002,
    "checkpoint_every": 2,
    "n": 30,
    "eval_seed": 1,
    "batch_stats": false,
    "features": "lenet-mnist",
    "out": "out"
  },
  "resources": {
    "cpus": 2,
    "memory_mib": 4096
  },
  "runs": [
    {
      "index": 0,
      "policy": "fp32",
      "seed": 1,
      "dir": "fp32/seed1",
      "spec": "fp32"
    }
  ]
}
`

// A plan records the sweep's model options and reads them back; a plan
// without options is written as before (no "options" key), and a plan
// file written before options existed loads, without options, and is
// equal to the plan the same sweep makes now.
func TestPlanOptions(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		model   string
		options map[string]string
		inFile  string // in the file, or "" for no "options" key
	}{
		{"no options", "cgan", nil, ""},
		{"empty options", "cgan", map[string]string{}, ""},
		{"dcgan g_features", "dcgan", map[string]string{"g_features": "128"}, `"g_features": "128"`},
		{"two options, sorted", "esrgan", map[string]string{"scale": "2", "blocks": "1"}, `"blocks": "1",
      "scale": "2"`},
	} {
		s := tinySweep("mnist", filepath.Join(dir, "out"), 2)
		s.Model, s.Options = tc.model, tc.options
		p, err := experiment.NewPlan(s, experiment.DefaultResources)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
		if err := experiment.WritePlan(file, p); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(file)
		if has := strings.Contains(string(data), `"options"`); has != (tc.inFile != "") || !strings.Contains(string(data), tc.inFile) {
			t.Errorf("%s: plan file:\n%s", tc.name, data)
		}
		q, err := experiment.ReadPlan(file)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !q.Equal(p) || len(q.Sweep.Options) != len(tc.options) || len(tc.options) > 0 && !reflect.DeepEqual(q.Sweep.Options, tc.options) {
			t.Errorf("%s: read back options %v, want %v", tc.name, q.Sweep.Options, tc.options)
		}
		if tc.options != nil {
			tc.options["later"] = "edit" // the plan keeps its own copy
			if _, ok := p.Sweep.Options["later"]; ok {
				t.Errorf("%s: the plan shares the sweep's options map", tc.name)
			}
		}
	}

	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(oldPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := experiment.ReadPlan(old)
	if err != nil {
		t.Fatalf("a plan file without options: %v", err)
	}
	if p.Sweep.Options != nil || p.Len() != 1 {
		t.Errorf("old plan: options %v, %d runs", p.Sweep.Options, p.Len())
	}
	s := tinySweep("mnist", "out", 2)
	s.Policies, s.Seeds = []string{"fp32"}, 1
	now, err := experiment.NewPlan(s, experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.json")
	if err := experiment.WritePlan(again, now); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(again); !p.Equal(now) || string(data) != oldPlan {
		t.Errorf("the old plan is not the one the same sweep makes now:\n%s", data)
	}
}

// Model options reach the configuration of every run of a sweep (and of a
// plan read back from its file); an unknown key is a *ConfigError of
// Options before anything is read, a bad value one before anything is
// trained; and a folder trained with other options is refused.
func TestSweepOptions(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	sweep := func(out string, opts map[string]string) experiment.Sweep {
		s := tinySweep(data, out, 2)
		s.Model, s.Policies, s.Seeds, s.Options = "dcgan", []string{"fp32"}, 1, opts
		return s
	}

	out := filepath.Join(dir, "plan-out")
	p, err := experiment.NewPlan(sweep(out, map[string]string{"g_features": "4"}), experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "plan.json")
	if err := experiment.WritePlan(file, p); err != nil {
		t.Fatal(err)
	}
	q, err := experiment.ReadPlan(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.RunPlan(context.Background(), q, experiment.Shard{}); err != nil {
		t.Fatal(err)
	}
	c, err := ckpt.Load(filepath.Join(out, "fp32", "seed1", "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.ConfigOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Arch != "dcgan" || cfg.Options["g_features"] != "4" || cfg.Features != 32 {
		t.Errorf("the run's model: %v; want dcgan with g_features 4 over features 32", cfg)
	}
	if md, err := os.ReadFile(filepath.Join(out, "results.md")); err != nil || !strings.HasPrefix(string(md), "DCGAN (g_features=4) on ") {
		t.Errorf("results.md starts %.40q (%v); want it to name the model options", md, err)
	}

	for _, tc := range []struct {
		name string
		out  string
		opts map[string]string
		want string
	}{
		{"unknown key", filepath.Join(dir, "fresh"), map[string]string{"bloks": "2"}, `has no option "bloks" (its options: g_features)`},
		{"bad value", filepath.Join(dir, "fresh"), map[string]string{"g_features": "0"}, "g_features 0"},
		{"not a number", filepath.Join(dir, "fresh"), map[string]string{"g_features": "x"}, "not an integer"},
		// out holds a run trained with g_features 4
		{"other options", out, map[string]string{"g_features": "8"}, ""},
		{"no options", out, nil, ""},
	} {
		_, err := experiment.Compare(context.Background(), sweep(tc.out, tc.opts))
		field := "Options"
		if tc.want == "" {
			field, tc.want = "Out", "was trained with model"
		}
		var ce *experiment.ConfigError
		if !errors.As(err, &ce) || ce.Field != field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a *ConfigError for %s containing %q", tc.name, err, field, tc.want)
		}
	}
	if exists(filepath.Join(dir, "fresh")) {
		t.Error("a sweep with bad options made its folder")
	}
	if _, err := experiment.NewPlan(sweep(out, map[string]string{"bloks": "2"}), experiment.DefaultResources); err == nil {
		t.Error("NewPlan took an unknown option")
	}
}
