package experiment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/internal/runlock"
)

// A plan lists the runs of its sweep in order with their folders, reads
// back as the same plan, and carries a policy file's contents.
func TestPlan(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(pol, []byte("preset = \"posit8\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := tinySweep("mnist", filepath.Join(dir, "out"), 2)
	s.Policies = []string{"fp32", pol}
	p, err := experiment.NewPlan(s, experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := p.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.String()+" "+r.Dir)
	}
	want := "fp32 seed 1 " + filepath.Join(s.Out, "fp32/seed1") + ";fp32 seed 2 " + filepath.Join(s.Out, "fp32/seed2") +
		";mine seed 1 " + filepath.Join(s.Out, "mine/seed1") + ";mine seed 2 " + filepath.Join(s.Out, "mine/seed2")
	if strings.Join(got, ";") != want {
		t.Errorf("runs %q, want %q", got, want)
	}
	file := filepath.Join(dir, "plan.json")
	if err := experiment.WritePlan(file, p); err != nil {
		t.Fatal(err)
	}
	os.Remove(pol) // the plan holds the policy
	q, err := experiment.ReadPlan(file)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Equal(p) || q.Sweep.Out != s.Out || q.Sweep.Features != "lenet-mnist" || q.Resources != experiment.DefaultResources {
		t.Errorf("read back: %+v", q)
	}
	again := filepath.Join(dir, "again.json")
	experiment.WritePlan(again, q)
	a, _ := os.ReadFile(file)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Errorf("written again, the plan changed:\n%s\n%s", a, b)
	}
	var f struct {
		Version int `json:"positgan_plan"`
		Runs    []struct {
			Index     int
			Dir, TOML string
			Spec      string
			Policy    string
			Seed      uint64
		}
	}
	if err := json.Unmarshal(a, &f); err != nil || f.Version != 1 || len(f.Runs) != 4 || f.Runs[3].Index != 3 ||
		f.Runs[3].Dir != "mine/seed2" || f.Runs[0].Spec != "fp32" || !strings.Contains(f.Runs[2].TOML, "posit") {
		t.Errorf("plan file (%v):\n%s", err, a)
	}
	if qr, err := q.Runs(); err != nil || qr[2].Policy != "mine" {
		t.Errorf("runs of the read plan: %v %v", qr, err)
	}

	// Bad files are *PlanErrors.
	for _, tc := range []struct{ edit, want string }{
		{`"positgan_plan": 2`, "version 2"},
		{`"index": 1`, "run 0 has index 1"},
		{`"dir": "../x"`, "not a clean path"},
		{`"steps": 0`, "Steps"},
		{`"bogus": 0, "positgan_plan": 1`, "bogus"},
		// A run is the sweep's run at its index: a label cannot leave the
		// output root or name another policy, nor a seed or spec differ
		// (issue 29).
		{`"policy": "../../X"`, "not one path element"},
		{`"policy": ".."`, "cannot name a folder"},
		{`"policy": "mine"`, `policy label "mine", but the sweep's policy 0 is "fp32"`},
		{`"seed": 7`, "seed 7, but the sweep gives it seed 1"},
		{`"spec": "posit8"`, `spec "posit8", but the sweep names "fp32"`},
		{`"dir": "fp32/seed2"`, `folder "fp32/seed2", want fp32/seed1`},
		{`"seeds": 3`, "4 runs; the sweep has 2 policies of 3 seeds"},
		{`"seeds": 1000000`, "4 runs"},
	} {
		old := strings.SplitN(tc.edit, ":", 2)[0]
		data := string(a)
		i := strings.Index(data, old)
		if i < 0 {
			i = strings.Index(data, `"positgan_plan"`)
		}
		j := i + strings.IndexAny(data[i:], ",\n")
		bad := data[:i] + tc.edit + data[j:]
		name := filepath.Join(dir, "bad.json")
		os.WriteFile(name, []byte(bad), 0o644)
		_, err := experiment.ReadPlan(name)
		var pe *experiment.PlanError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a *PlanError containing %q", tc.edit, err, tc.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want experiment.Shard
		err  string
	}{
		{"0/1", experiment.Shard{0, 1}, ""},
		{"3/4", experiment.Shard{3, 4}, ""},
		{"4/4", experiment.Shard{}, "outside 0..3"},
		{"-1/4", experiment.Shard{}, "outside"},
		{"0/0", experiment.Shard{}, "must be positive"},
		{"1", experiment.Shard{}, "want i/n"},
		{"a/b", experiment.Shard{}, "want i/n"},
	} {
		sh, err := experiment.ParseShard(tc.in)
		if tc.err == "" && (err != nil || sh != tc.want || sh.String() != tc.in) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseShard(%q) = %v, %v", tc.in, sh, err)
		}
	}
	sh := experiment.Shard{Index: 1, Count: 3}
	var mine []int
	for i := range 8 {
		if sh.Has(i) {
			mine = append(mine, i)
		}
	}
	if len(mine) != 3 || mine[0] != 1 || mine[1] != 4 || mine[2] != 7 || !(experiment.Shard{}).Has(5) {
		t.Errorf("shard 1/3 of 8 runs: %v", mine)
	}
}

func TestShardFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env   map[string]string
		count int
		want  experiment.Shard
		ok    bool
		err   string
	}{
		{nil, 0, experiment.Shard{}, false, ""},
		{nil, 4, experiment.Shard{}, false, ""},
		{map[string]string{"JOB_COMPLETION_INDEX": "2"}, 4, experiment.Shard{2, 4}, true, ""},
		{map[string]string{"JOB_COMPLETION_INDEX": "2"}, 0, experiment.Shard{}, true, "completions"},
		{map[string]string{"JOB_COMPLETION_INDEX": "4"}, 4, experiment.Shard{}, true, "outside 0..3"},
		{map[string]string{"JOB_COMPLETION_INDEX": "x"}, 4, experiment.Shard{}, true, "not an integer"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "5"}, 0, experiment.Shard{3, 5}, true, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "5", "SLURM_ARRAY_TASK_MIN": "1"}, 5, experiment.Shard{2, 5}, true, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, 5, experiment.Shard{3, 5}, true, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "5"}, 4, experiment.Shard{}, true, "array has 5 tasks"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, 0, experiment.Shard{}, true, "must be positive"},
	} {
		sh, ok, err := experiment.ShardFromEnv(func(k string) string { return tc.env[k] }, tc.count)
		if ok != tc.ok || tc.err == "" && (err != nil || sh != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v, count %d: %v %v %v", tc.env, tc.count, sh, ok, err)
		}
	}
}

// Environment of TestShardHelper, the child process of TestRunPlanKilled.
const (
	envHelperPlan  = "POSITGAN_TEST_SHARD_PLAN"  // the plan file
	envHelperOut   = "POSITGAN_TEST_SHARD_OUT"   // the output root
	envHelperShard = "POSITGAN_TEST_SHARD"       // i/n
	envHelperReady = "POSITGAN_TEST_SHARD_READY" // file made when stopping
)

// TestShardHelper runs a shard of a plan and stops at step 3 of its first
// run (after the checkpoint of step 2), where it makes the file
// envHelperReady names and waits to be killed.
func TestShardHelper(t *testing.T) {
	name := os.Getenv(envHelperPlan)
	if name == "" {
		t.Skip("the child process of TestRunPlanKilled")
	}
	p, err := experiment.ReadPlan(name)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := experiment.ParseShard(os.Getenv(envHelperShard))
	if err != nil {
		t.Fatal(err)
	}
	p.Sweep.Out = os.Getenv(envHelperOut)
	p.Sweep.Progress = func(experiment.Run, int, []string) func(experiment.StepStats, time.Duration) {
		return func(st experiment.StepStats, _ time.Duration) {
			if st.Step == 3 {
				os.WriteFile(os.Getenv(envHelperReady), nil, 0o644)
				time.Sleep(time.Hour) // until killed
			}
		}
	}
	experiment.RunPlan(context.Background(), p, sh)
	t.Fatal("not stopped")
}

// comparable returns a table file with its timing left out: the s/step
// column of results.md and runs.csv (found by its header), the s/step
// lines of results.csv.
func comparable(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	col := -1 // of the s/step figures, found in the header line
	for _, line := range strings.Split(string(data), "\n") {
		switch filepath.Base(name) {
		case "results.md":
			if strings.HasPrefix(line, "|") {
				line = withoutColumn(line, "|", " s/step ", &col)
			}
		case "runs.csv":
			line = withoutColumn(line, ",", "s_per_step", &col)
		case "results.csv":
			if strings.Contains(line, ",s/step,") {
				continue
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// withoutColumn returns line, cells separated by sep, without the cell
// of the column whose header cell is head: *col is -1 until the header
// line is seen. (The tables' timing columns are no longer last: the
// significance columns and later figures follow them.)
func withoutColumn(line, sep, head string, col *int) string {
	cells := strings.Split(line, sep)
	if *col < 0 {
		*col = slices.Index(cells, head)
	}
	if *col < 0 || *col >= len(cells) {
		return line
	}
	return strings.Join(slices.Delete(cells, *col, *col+1), sep)
}

// sameSweepFiles checks that two sweep folders hold the same table,
// chart, grids and checkpoints; the table files are compared without
// their timing (comparable).
func sameSweepFiles(t *testing.T, a, b string, runs []string) {
	t.Helper()
	for _, f := range []string{"results.md", "results.csv", "runs.csv"} {
		if x, y := comparable(t, filepath.Join(a, f)), comparable(t, filepath.Join(b, f)); x != y {
			t.Errorf("%s differs:\n%s\n---\n%s", f, x, y)
		}
	}
	files := []string{"fid.png", "grids.png"}
	for _, r := range runs {
		files = append(files, r+"/checkpoint.safetensors", r+"/samples.png")
	}
	for _, f := range files {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs (%v, %v)", f, err1, err2)
		}
	}
}

// A plan run as two shards, one of them killed mid-run (kill -9) and
// started again, ends with the table, chart, grids and checkpoints of the
// plan run in one process.
func TestRunPlanKilled(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	p, err := experiment.NewPlan(tinySweep(data, filepath.Join(dir, "one"), 5), experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan.json")
	if err := experiment.WritePlan(planFile, p); err != nil {
		t.Fatal(err)
	}
	runs := []string{"fp32/seed1", "fp32/seed2", "posit8/seed1", "posit8/seed2"}

	// Shard 0/2 (fp32 seed 1, posit8 seed 1) in a child process, killed
	// at step 3 of fp32 seed 1; shard 1/2 meanwhile in this one.
	sharded := filepath.Join(dir, "sharded")
	ready := filepath.Join(dir, "ready")
	child := exec.Command(os.Args[0], "-test.run", "^TestShardHelper$")
	child.Env = append(os.Environ(), envHelperPlan+"="+planFile, envHelperOut+"="+sharded, envHelperShard+"=0/2", envHelperReady+"="+ready)
	var childErr bytes.Buffer
	child.Stderr = &childErr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	q, _ := experiment.ReadPlan(planFile)
	q.Sweep.Out = sharded
	if _, err := experiment.RunPlan(context.Background(), q, experiment.Shard{Index: 1, Count: 2}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); !exists(ready); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("the child did not reach step 3:\n%s", childErr.String())
		}
	}
	held := filepath.Join(sharded, "fp32/seed1")
	if pid := runlock.Owner(held); pid != child.Process.Pid {
		t.Errorf("fp32/seed1 is held by process %d, not the child %d", pid, child.Process.Pid)
	}
	// The folder is claimed: the whole plan, run meanwhile, leaves it.
	q.Sweep.Out = sharded
	var log bytes.Buffer
	q.Sweep.Log = &log
	_, err = experiment.RunPlan(context.Background(), q, experiment.Shard{})
	if !errors.Is(err, experiment.ErrBusy) || !strings.Contains(log.String(), "fp32 seed 1: run folder in use") {
		t.Errorf("the whole plan while a shard trains fp32 seed 1: %v\n%s", err, log.String())
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	if !exists(filepath.Join(held, "checkpoint.safetensors")) || exists(filepath.Join(held, experiment.ResultFile)) {
		t.Fatalf("the child was not killed mid-run:\n%s", childErr.String())
	}
	if _, err := experiment.Merge(nil, []string{sharded}, sharded); !errors.Is(err, experiment.ErrIncomplete) ||
		!strings.Contains(err.Error(), "1 of 4 (first fp32 seed 1)") {
		t.Errorf("Merge before the shard is done: %v", err)
	}

	// Shard 0/2 again: it resumes fp32 seed 1 from its checkpoint.
	log.Reset()
	q.Sweep.Log = &log
	if _, err := experiment.RunPlan(context.Background(), q, experiment.Shard{Index: 0, Count: 2}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "fp32 seed 1: resuming at step 2 of 5") || strings.Count(log.String(), ": done (") != 1 {
		t.Errorf("restarted shard, log:\n%s", log.String())
	}
	if _, err := experiment.Merge(nil, []string{sharded}, sharded); err != nil {
		t.Fatal(err)
	}

	// The whole plan in one process.
	if _, err := experiment.RunPlan(context.Background(), p, experiment.Shard{}); err != nil {
		t.Fatal(err)
	}
	sameSweepFiles(t, filepath.Join(dir, "one"), sharded, runs)

	// A folder of another plan is refused.
	other := tinySweep(data, sharded, 6)
	op, err := experiment.NewPlan(other, experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	_, err = experiment.RunPlan(context.Background(), op, experiment.Shard{Index: 0, Count: 2})
	var ce *experiment.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "another plan") {
		t.Errorf("a shard of another plan in the folder: %v", err)
	}
}
