package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// A run's run.toml holds every setting: training from it into another
// folder gives the same checkpoint, bit for bit; a flag given beside
// --config wins over the file.
func TestRunConfigRepeats(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 40)
	first := filepath.Join(dir, "first")
	mustRun(t, "train", "--dataset", data, "--policy", "fp32,posit8+", "--batch", "8", "--features", "4", "--seed", "7",
		"--bias-every", "2", "--lr", "3e-4", "--steps", "3", "--sample-every", "0", "--out", first)
	cfg := filepath.Join(first, "posit8+", runConfigFile)
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`policy = "posit8+"`, "seed = 7", "bias-every = 2", "lr = 0.0003", "steps = 3", "features = 4"} {
		if !strings.Contains(string(text), "\n"+want+"\n") {
			t.Errorf("%s lacks %q:\n%s", cfg, want, text)
		}
	}

	again := filepath.Join(dir, "again")
	mustRun(t, "train", "--config", cfg, "--out", again)
	a, err := os.ReadFile(filepath.Join(first, "posit8+", "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(again, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("training from run.toml gave another checkpoint")
	}

	other := filepath.Join(dir, "other")
	mustRun(t, "train", "--config", cfg, "--out", other, "--seed", "8")
	if c, err := os.ReadFile(filepath.Join(other, "checkpoint.safetensors")); err != nil || bytes.Equal(a, c) {
		t.Errorf("--seed 8 beside --config: same checkpoint (%v)", err)
	}
	if text, err := os.ReadFile(filepath.Join(other, runConfigFile)); err != nil || !strings.Contains(string(text), "\nseed = 8\n") {
		t.Errorf("--seed 8 beside --config: run.toml says\n%s (%v)", text, err)
	}
}

func TestRunConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ file, want string }{
		{"steps = 2\nbogus = 1\n", `unknown key "bogus"`},
		{"resume = true\n", `unknown key "resume"`},
		{`steps = "x"` + "\n", `steps = "x"`},
		{"steps = \n", "line 1"},
		{"[section]\nsteps = 2\n", "unknown key"},
	} {
		path := filepath.Join(dir, "run.toml")
		if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runCLI(t, "", "train", "--config", path, "--out", filepath.Join(dir, "out"))
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", tc.file, code, stderr, tc.want)
		}
	}
}

// After --resume, run.toml holds the settings the checkpoint trained with
// (not the flags' defaults), so that training from it straight through
// gives the resumed run's checkpoint.
func TestRunConfigAfterResume(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 40)
	run := filepath.Join(dir, "run")
	mustRun(t, "train", "--dataset", data, "--policy", "posit8+", "--batch", "8", "--features", "4", "--seed", "3",
		"--steps", "2", "--sample-every", "0", "--out", run)
	mustRun(t, "train", "--dataset", data, "--policy", "posit8+", "--steps", "4", "--resume", "--sample-every", "0", "--out", run)
	text, err := os.ReadFile(filepath.Join(run, runConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"features = 4", "seed = 3", "batch = 8", "steps = 4"} {
		if !strings.Contains(string(text), "\n"+want+"\n") {
			t.Errorf("run.toml after --resume lacks %q:\n%s", want, text)
		}
	}
	// The checkpoints' bytes differ (the state records the run's length
	// at each start); their tensors must not.
	again := filepath.Join(dir, "again")
	mustRun(t, "train", "--config", filepath.Join(run, runConfigFile), "--out", again)
	a, err := ckpt.Load(filepath.Join(run, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ckpt.Load(filepath.Join(again, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Tensors) == 0 || len(a.Tensors) != len(b.Tensors) {
		t.Fatalf("%d and %d tensors", len(a.Tensors), len(b.Tensors))
	}
	for name, ta := range a.Tensors {
		if tb, ok := b.Tensors[name]; !ok || !slices.Equal(ta.Data, tb.Data) {
			t.Errorf("%s: the run trained from run.toml differs from the resumed run", name)
		}
	}
}

// A repeatable flag (--option key=value) goes to run.toml as an array and
// comes back one value at a time.
func TestRunConfigRepeatedFlag(t *testing.T) {
	write := flag.NewFlagSet("train", flag.ContinueOnError)
	var o modelOptions
	write.Var(&o, "option", "model option")
	steps := write.Int("steps", 5, "steps")
	if err := write.Parse([]string{"--option", "blocks=9", "--option", "a=1", "--steps", "7"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), runConfigFile)
	if err := writeRunConfig(path, write, nil); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), "\noption = [\"a=1\", \"blocks=9\"]\n") {
		t.Errorf("run.toml:\n%s", text)
	}

	read := flag.NewFlagSet("train", flag.ContinueOnError)
	var back modelOptions
	read.Var(&back, "option", "model option")
	readSteps := read.Int("steps", 5, "steps")
	if err := applyRunConfig(read, path, map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	if back.String() != o.String() || *readSteps != *steps {
		t.Errorf("read back --option %s --steps %d, want %s and %d", back.String(), *readSteps, o.String(), *steps)
	}
}
