package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
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

// envCompareHelper holds the arguments (separated by \x1f) of the command
// line TestCompareHelper runs: the child processes of TestCompareShards.
const envCompareHelper = "POSITGAN_TEST_COMPARE_ARGS"

func TestCompareHelper(t *testing.T) {
	args := os.Getenv(envCompareHelper)
	if args == "" {
		t.Skip("a child process of TestCompareShards")
	}
	os.Exit(run(strings.Split(args, "\x1f"), stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// startCLI starts the command line in a child process (this test binary
// running TestCompareHelper) with extra environment variables.
func startCLI(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCompareHelper$")
	cmd.Env = append(append(os.Environ(), envCompareHelper+"="+strings.Join(args, "\x1f")), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// withoutTiming returns a table file without its s/step figures: the
// s/step column of results.md and runs.csv (found by its header), the
// s/step lines of results.csv.
func withoutTiming(t *testing.T, name string) string {
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
// line is seen. (The timing columns are no longer last: the
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

// A plan written by compare --plan, run as two shards in two processes at
// once (one shard numbered by --shard, the other by a Kubernetes Indexed
// Job's environment) and merged with --merge, gives the table, chart,
// grids and checkpoints that the plan run in one process gives; the
// table files are compared without their s/step timing.
func TestCompareShards(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	plan := filepath.Join(dir, "plan.json")
	one, sharded := filepath.Join(dir, "one"), filepath.Join(dir, "sharded")

	args := append(compareArgs(data, one, "3"), "--plan", plan)
	out := mustRun(t, args...)
	if !strings.Contains(out, "4 runs into "+one) {
		t.Errorf("writing the plan: %q", out)
	}
	if exists(one) {
		t.Error("writing the plan ran it")
	}
	if out := mustRun(t, args...); !strings.Contains(out, "up to date") {
		t.Errorf("writing the same plan again: %q", out)
	}
	if _, stderr, code := runCLI(t, "", append(compareArgs(data, one, "4"), "--plan", plan)...); code != 2 || !strings.Contains(stderr, "holds another plan") {
		t.Errorf("another plan over the file: exit %d, %q", code, stderr)
	}

	a, aout := startCLI(t, nil, "compare", "--plan", plan, "--shard", "0/2", "--out", sharded)
	b, bout := startCLI(t, []string{"JOB_COMPLETION_INDEX=1"}, "compare", "--plan", plan, "--shards", "2", "--out", sharded)
	for _, c := range []struct {
		cmd *exec.Cmd
		out *bytes.Buffer
	}{{a, aout}, {b, bout}} {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("shard: %v\n%s", err, c.out)
		}
	}
	for k, o := range []string{aout.String(), bout.String()} {
		if !strings.Contains(o, fmt.Sprintf("shard %d/2: 2 of 4 runs finished", k)) || strings.Count(o, "s/step\n") != 2 {
			t.Errorf("shard %d/2 output:\n%s", k, o)
		}
	}
	if exists(filepath.Join(sharded, "results.md")) {
		t.Error("a shard wrote the table")
	}
	merged := mustRun(t, "compare", "--merge", sharded)

	table := mustRun(t, "compare", "--plan", plan) // trains all of it in the plan's folder
	if withoutTiming(t, filepath.Join(sharded, "results.md")) != withoutTiming(t, filepath.Join(one, "results.md")) ||
		!strings.Contains(merged, "| posit8 |") {
		t.Errorf("merged table:\n%s\none process:\n%s", merged, table)
	}
	for _, f := range []string{"results.csv", "runs.csv"} {
		if x, y := withoutTiming(t, filepath.Join(one, f)), withoutTiming(t, filepath.Join(sharded, f)); x != y {
			t.Errorf("%s differs:\n%s\n---\n%s", f, x, y)
		}
	}
	files := []string{"fid.png", "grids.png", "grids/fp32.png"}
	for _, r := range []string{"fp32/seed1", "fp32/seed2", "posit8/seed1", "posit8/seed2"} {
		files = append(files, r+"/checkpoint.safetensors", r+"/samples.png")
	}
	for _, f := range files {
		x, err1 := os.ReadFile(filepath.Join(one, f))
		y, err2 := os.ReadFile(filepath.Join(sharded, f))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs (%v, %v)", f, err1, err2)
		}
	}
	// Run again, the plan only gathers.
	_, stderr, code := runCLI(t, "", "compare", "--plan", plan)
	if code != 0 || strings.Count(stderr, ": done (") != 4 {
		t.Errorf("the finished plan again: exit %d\n%s", code, stderr)
	}
	// Merged from the two folders into a third: every run is in both.
	third := filepath.Join(dir, "third")
	mustRun(t, "compare", "--merge", "--out", third, sharded, one)
	if withoutTiming(t, filepath.Join(third, "runs.csv")) != withoutTiming(t, filepath.Join(one, "runs.csv")) {
		t.Error("merged from two folders: runs.csv differs")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--shard", "0/2"}, "--shard needs --plan"},
		{[]string{"compare", "--plan", plan, "--shard", "2/2"}, "outside 0..1"},
		{[]string{"compare", "--plan", plan, "--shards", "2"}, "none is set"},
		{[]string{"compare", "--plan", plan, "--shard", "0/2", "--shards", "3"}, "disagree"},
		{[]string{"compare", "--plan", plan, "--emit", "kubernetes"}, "--shards n"},
		{[]string{"compare", "--plan", plan, "--emit", "nomad", "--shards", "2"}, "want kubernetes or slurm"},
		{[]string{"compare", "--plan", plan, "--emit", "slurm", "--shards", "5"}, "5 shards for 4 runs"},
		{[]string{"compare", "--plan", filepath.Join(dir, "new.json"), "--shard", "0/2"}, "runs an existing plan"},
		{[]string{"compare", "--plan", filepath.Join(dir, "new.json"), "--memory", "4T"}, "--memory 4T"},
		{[]string{"compare", "--merge"}, "give the output folders"},
		{[]string{"compare", "--merge", data}, "no plan to merge by"},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// compare --emit kubernetes prints an Indexed Job that runs the plan's
// shards (with its ConfigMap), and --emit slurm an sbatch array script.
func TestCompareEmit(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	plan := filepath.Join(dir, "plan.json")
	out := filepath.Join(dir, "sweep")
	mustRun(t, "compare", "--dataset", data, "--features", "lenet-mnist", "--policies", "fp32,posit8,fp8-ibm",
		"--seeds", "3", "--out", out, "--cpus", "4", "--memory", "6G", "--plan", plan)

	manifest := mustRun(t, "compare", "--plan", plan, "--emit", "kubernetes", "--shards", "5", "--image", "reg.example/positgan:v1")
	var list struct {
		Kind  string
		Items []struct {
			Kind     string
			Metadata struct{ Name string }
			Data     map[string]string
			Spec     struct {
				CompletionMode           string
				Completions, Parallelism int
				Template                 struct {
					Spec struct {
						RestartPolicy string
						Containers    []struct {
							Image        string
							Command      []string
							Resources    struct{ Requests, Limits map[string]string }
							VolumeMounts []struct {
								Name, MountPath string
							}
						}
						Volumes []struct {
							Name                  string
							PersistentVolumeClaim struct{ ClaimName string }
							ConfigMap             struct{ Name string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(manifest), &list); err != nil || list.Kind != "List" || len(list.Items) != 2 {
		t.Fatalf("manifest (%v):\n%s", err, manifest)
	}
	cm, job := list.Items[0], list.Items[1]
	if cm.Kind != "ConfigMap" || cm.Metadata.Name != "positgan-compare-plan" {
		t.Errorf("config map: %+v", cm)
	}
	planData, _ := os.ReadFile(plan)
	if cm.Data["plan.json"] != string(planData) {
		t.Errorf("the config map's plan.json is not the plan file:\n%s", cm.Data["plan.json"])
	}
	js := job.Spec
	if job.Kind != "Job" || js.CompletionMode != "Indexed" || js.Completions != 5 || js.Parallelism != 5 || len(js.Template.Spec.Containers) != 1 {
		t.Fatalf("job: %+v", job)
	}
	c := js.Template.Spec.Containers[0]
	if c.Image != "reg.example/positgan:v1" || strings.Join(c.Command, " ") != "positgan compare --plan /etc/positgan/plan.json --shards 5" {
		t.Errorf("container: image %q, command %q", c.Image, c.Command)
	}
	if c.Resources.Requests["cpu"] != "4" || c.Resources.Requests["memory"] != "6144Mi" || c.Resources.Limits["memory"] != "6144Mi" {
		t.Errorf("resources: %+v", c.Resources)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	vols := js.Template.Spec.Volumes
	if mounts["out"] != out || mounts["plan"] != "/etc/positgan" || len(vols) != 2 ||
		vols[0].PersistentVolumeClaim.ClaimName != "positgan-out" || vols[1].ConfigMap.Name != "positgan-compare-plan" ||
		js.Template.Spec.RestartPolicy != "OnFailure" {
		t.Errorf("volumes: mounts %v, volumes %+v", mounts, vols)
	}
	// Every index the job gives a pod is a shard, and the shards share
	// out the 9 runs.
	runs := 0
	for i := range js.Completions {
		var f compareFlags
		f.shards = 5
		sh, err := f.shardOf(func(k string) string {
			if k == "JOB_COMPLETION_INDEX" {
				return fmt.Sprint(i)
			}
			return ""
		})
		if err != nil || sh.Index != i || sh.Count != 5 {
			t.Errorf("index %d: shard %v, %v", i, sh, err)
		}
		for r := range 9 {
			if sh.Has(r) {
				runs++
			}
		}
	}
	if runs != 9 {
		t.Errorf("the shards have %d runs, want 9", runs)
	}

	script := mustRun(t, "compare", "--plan", plan, "--emit", "slurm", "--shards", "3")
	lines := strings.Split(script, "\n")
	directives := map[string]string{}
	var cmdLine string
	for _, l := range lines {
		if d, ok := strings.CutPrefix(l, "#SBATCH --"); ok {
			k, v, _ := strings.Cut(d, "=")
			directives[k] = v
		}
		if strings.HasPrefix(l, "exec ") {
			cmdLine = l
		}
	}
	if lines[0] != "#!/bin/sh" || directives["array"] != "0-2" || directives["cpus-per-task"] != "4" || directives["mem"] != "6144M" ||
		directives["job-name"] != "positgan-compare" || cmdLine != "exec positgan compare --plan "+plan+" --shards 3" {
		t.Errorf("slurm script:\n%s", script)
	}
	for i := range 3 {
		var f compareFlags
		f.shards = 3
		env := map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(i), "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"}
		if sh, err := f.shardOf(func(k string) string { return env[k] }); err != nil || sh.Index != i || sh.Count != 3 {
			t.Errorf("array task %d: shard %v, %v", i, sh, err)
		}
	}
	if _, stderr, code := runCLI(t, "", "compare", "--plan", plan, "--emit", "kubernetes", "--shards", "2", "--out", "rel"); code != 0 {
		t.Errorf("--out with --emit: exit %d %s", code, stderr)
	}
}

// compare --model cyclegan plans a sweep of the mnist-fashion toy when no
// --dataset is given (its FIDs are the two directions').
func TestComparePlanCycleGAN(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.json")
	mustRun(t, "compare", "--model", "cyclegan", "--policies", "fp32", "--seeds", "1", "--steps", "2", "--plan", plan)
	b, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"mnist-fashion"`) || !strings.Contains(string(b), `"cyclegan"`) {
		t.Errorf("plan:\n%s", b)
	}
}

// compare --option: bad keys and values are one-line usage errors, as
// train's; a good one is recorded in the plan (and said when it is
// written), and another one is another plan.
func TestCompareOption(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	base := []string{"compare", "--dataset", data, "--features", "lenet-mnist", "--policies", "fp32", "--seeds", "1",
		"--steps", "1", "--batch", "8", "--n", "20", "--out", filepath.Join(dir, "cmp")}
	plan := filepath.Join(dir, "plan.json")
	for _, tc := range []struct {
		args []string
		want string // in the one-line error
	}{
		{[]string{"--model", "esrgan", "--option", "bloks=2"}, `--option: models: esrgan has no option "bloks" (its options: blocks, gan_weight, gc, pixel_weight, pretrain, scale)`},
		{[]string{"--model", "cgan", "--option", "blocks=2"}, "cgan has no options"},
		{[]string{"--model", "dcgan", "--option", "g_features=0"}, "--option: models: dcgan: g_features 0"},
		{[]string{"--model", "dcgan", "--option", "g_features=x"}, "not an integer"},
		{[]string{"--model", "dcgan", "--option", "g_features"}, "want key=value"},
		{[]string{"--model", "dcgan", "--option", "=8"}, "want key=value"},
		{[]string{"--model", "dcgan", "--option", "g_features="}, "g_features has no value"},
		{[]string{"--model", "dcgan", "--option", "g_features=8", "--option", "g_features=9"}, "g_features given twice"},
		{[]string{"--model", "esrgan", "--option", "bloks=2", "--plan", plan}, `esrgan has no option "bloks"`},
	} {
		args := append(append([]string(nil), base...), tc.args...)
		_, stderr, code := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
	if exists(plan) || exists(filepath.Join(dir, "cmp")) {
		t.Error("a bad option wrote a plan or made the output folder")
	}

	for _, tc := range []struct {
		opts []string
		want string // stdout
		code int
	}{
		{[]string{"g_features=4"}, "1 runs into " + filepath.Join(dir, "cmp") + " (model options g_features=4); run them", 0},
		{[]string{" g_features = 4 "}, "up to date, 1 runs into " + filepath.Join(dir, "cmp") + " (model options g_features=4)\n", 0},
		{[]string{"g_features=8"}, "", 2}, // another plan
		{nil, "", 2},
	} {
		args := append(append([]string(nil), base...), "--model", "dcgan", "--plan", plan)
		for _, o := range tc.opts {
			args = append(args, "--option", o)
		}
		out, stderr, code := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(out, tc.want) || tc.code == 2 && !strings.Contains(stderr, "holds another plan") {
			t.Errorf("--option %q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.opts, code, out, stderr, tc.code, tc.want)
		}
	}
	p, err := experiment.ReadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sweep.Options) != 1 || p.Sweep.Options["g_features"] != "4" || p.Sweep.Model != "dcgan" {
		t.Errorf("plan sweep %+v", p.Sweep)
	}
	// The plan runs with its options: the log says them, the checkpoint
	// holds them.
	_, stderr, code := runCLI(t, "", "compare", "--plan", plan)
	if code != 0 || !strings.Contains(stderr, "model options: g_features=4\n") {
		t.Fatalf("compare --plan: exit %d, stderr:\n%s", code, stderr)
	}
	c, err := ckpt.Load(filepath.Join(dir, "cmp", "fp32", "seed1", "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := models.ConfigOf(c); err != nil || cfg.Options["g_features"] != "4" {
		t.Errorf("the run's model %v (%v); want g_features 4", cfg, err)
	}
}

// train and compare give a model the same default data set and batch
// (models.TrainDefaultsOf), when not given on the command line.
func TestModelDefaults(t *testing.T) {
	for _, tc := range []struct {
		model     string
		set       map[string]bool
		dataset   string // before
		keepBatch bool
		wantData  string
		wantBatch int
	}{
		{"cgan", nil, "mnist", false, "mnist", 64},
		{"dcgan", map[string]bool{"batch": true}, "mnist", false, "mnist", 5},
		{"cyclegan", nil, "mnist", false, "mnist-fashion", 64},
		{"cyclegan", map[string]bool{"dataset": true}, "mnist", false, "mnist", 64},
		{"esrgan", nil, "mnist", false, "sr-photos", 8},
		{"esrgan", nil, "mnist", true, "sr-photos", 5},     // a resumed run keeps its batch
		{"esrgan", nil, "my-photos", true, "my-photos", 5}, // and its checkpoint's data set
		{"esrgan", map[string]bool{"dataset": true, "batch": true}, "mnist", false, "mnist", 5},
	} {
		dataset, batch := tc.dataset, 5
		modelDefaults(tc.model, tc.set, &dataset, &batch, tc.keepBatch)
		if dataset != tc.wantData || batch != tc.wantBatch {
			t.Errorf("%s %v from %s (keep batch %v): %s, batch %d; want %s, %d", tc.model, tc.set, tc.dataset, tc.keepBatch,
				dataset, batch, tc.wantData, tc.wantBatch)
		}
	}
	// train applies them: an esrgan run given no --batch trains with
	// batch 8 (its run.toml says so).
	photos, run := writePhotos(t, 24, 24), t.TempDir()
	mustRun(t, "train", "--model", "esrgan", "--dataset", photos, "--image-size", "16", "--features", "4", "--steps", "1",
		"--policy", "fp32", "--out", run, "--sample-every", "0",
		"--option", "scale=2", "--option", "blocks=1", "--option", "gc=2", "--option", "pretrain=1")
	if toml, err := os.ReadFile(filepath.Join(run, runConfigFile)); err != nil || !strings.Contains(string(toml), "\nbatch = 8\n") {
		t.Errorf("train --model esrgan: %s (%v); want batch = 8", toml, err)
	}
	// compare's plan.
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	mustRun(t, "compare", "--model", "esrgan", "--policies", "fp32", "--seeds", "1", "--steps", "2", "--plan", plan)
	p, err := experiment.ReadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sweep.Dataset != "sr-photos" || p.Sweep.Batch != 8 {
		t.Errorf("compare --model esrgan plans %s with batch %d; want sr-photos with batch 8", p.Sweep.Dataset, p.Sweep.Batch)
	}
}

// --metrics, --baseline and --alpha are checked before anything trains,
// and a finished sweep given --metrics prdc gains its columns without
// training again.
func TestCompareMetricsFlags(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics", "fid,nosuch"}, "--metrics nosuch"},
		{[]string{"--metrics", "psnr"}, "--metrics psnr"},
		{[]string{"--alpha", "1.5"}, "--alpha 1.5"},
	} {
		_, stderr, code := runCLI(t, "", append(compareArgs(data, out, "2"), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || exists(filepath.Join(out, "fp32")) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q, nothing trained", tc.args, code, stderr, tc.want)
		}
	}
	mustRun(t, compareArgs(data, out, "2")...)
	table, stderr, code := runCLI(t, "", append(compareArgs(data, out, "2"), "--metrics", "fid,prdc", "--baseline", "posit8", "--alpha", "0.01")...)
	if code != 0 || strings.Count(stderr, "measured again for precision (LeNet-MNIST)") != 4 || strings.Contains(stderr, "resuming") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"| coverage (LeNet-MNIST) | p vs posit8 | 95% CI of difference | differs from posit8 |", "α = 0.01"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}
