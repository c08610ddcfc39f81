package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// compareFlags are the flags of positgan compare.
type compareFlags struct {
	model, dataset, policies, out, features string
	steps, seeds, n, batch                  int
	firstSeed, evalSeed                     uint64
	ckptEvery, logEvery                     int
	lr                                      float64
	batchStats                              bool
	options                                 modelOptions // --option key=value, as train's (options.go)

	// the table: set metrics beside the FID, and the significance tests
	metrics, baseline string
	alpha             float64

	// plans and shards
	plan, shard, emit, memory, image, claim, jobName string
	shards, cpus                                     int
	merge                                            bool
	set                                              map[string]bool // the flags given
}

func compareCmd() *command {
	sr := models.TrainDefaultsOf(models.ESRGAN)
	return &command{name: "compare", usage: "[flags]",
		summary: "train a GAN in several policies over several seeds and tabulate FID\n\n" +
			"For every policy of --policies and every seed, trains --model on --dataset for --steps steps\n" +
			"into --out/<policy>/seed<k>/ (as positgan train does), then measures the FID of --n generated\n" +
			"images (fixed seeded noise; for CGAN, labels cycling through the classes) against --n images\n" +
			"of the data set's test split, with the feature network --features. The FID is named after\n" +
			"that network, e.g. FID (LeNet-MNIST): it is not the Inception FID of the literature.\n" +
			"--model cyclegan measures the FID of each direction instead (as translate --fid does):\n" +
			"translations of --n test images of one domain against --n test images of the other.\n" +
			"--model esrgan measures x4 super-resolution of the held-out images instead (as upscale does:\n" +
			fmt.Sprintf("Y-PSNR, PSNR, SSIM) on --dataset %s and batch %d by default, with a bicubic row.\n", sr.Dataset, sr.Batch) +
			"--option key=value sets a model option in every run, as train --option does (e.g. --model dcgan\n" +
			"--option g_features=128); the plan records it, the run folders do not depend on it.\n" +
			"Writes --out/results.md and results.csv (mean ± sample std over seeds), runs.csv (one line\n" +
			"per run), fid.png (bar chart with error bars) and grids/<policy>.png (the first seed's\n" +
			"sample grid; grids.png has them side by side). The table is rewritten after every run; running the same command again\n" +
			"skips finished runs and resumes a half-trained one from its checkpoint, bit for bit.\n" +
			"Every row is tested against --baseline over seeds (Welch's t-test, a bootstrap 95% interval of the\n" +
			"difference, \"differs\" Holm-corrected across rows at --alpha; docs/evaluation.md); --metrics adds set\n" +
			"metrics measured from the FID's features (e.g. fid,prdc: precision, recall, density, coverage), and on\n" +
			"a finished sweep measures only the missing ones, from the checkpoints, without training.\n\n" +
			"Across processes or machines (docs/scale-out.md):\n" +
			"  compare [sweep flags] --plan plan.json   writes the plan (every run, its settings and folder) without running it\n" +
			"  compare --plan plan.json --shard i/n     trains the runs with index i mod n, claiming each (the index may come\n" +
			"                                           from JOB_COMPLETION_INDEX with --shards n, or SLURM_ARRAY_TASK_ID)\n" +
			"  compare --plan plan.json                 trains what is left, then writes the table of the whole plan\n" +
			"  compare --merge DIR...                   writes the table of the finished runs in the folders (into --out or the first)\n" +
			"  compare --plan plan.json --emit kubernetes|slurm --shards n   prints an Indexed Job manifest or an sbatch script",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			f := &compareFlags{}
			fs.StringVar(&f.model, "model", models.CGAN, "registered model: "+strings.Join(models.Names(), ", ")+" (cyclegan: the FID of each direction of translation)")
			fs.StringVar(&f.dataset, "dataset", models.DefaultDataset, "mnist, fashion-mnist, or an IDX directory with a test split; cyclegan: mnist-fashion or an unpaired folder"+modelDatasetDefaults())
			fs.StringVar(&f.policies, "policies", "fp32,fp16,posit8+,posit8,fp8-ibm", "quantization policies, comma-separated: presets or .toml files")
			fs.StringVar(&f.out, "out", filepath.Join("out", "compare"), "output folder")
			fs.StringVar(&f.features, "features", "", "feature network of the FID: "+featnet.Specs+" (default: lenet-mnist for mnist, lenet-fashion for fashion-mnist)")
			fs.IntVar(&f.steps, "steps", defaultTrainSteps, "training steps per run")
			fs.IntVar(&f.seeds, "seeds", 3, "runs per policy, with seeds --seed, --seed+1, ...")
			fs.Uint64Var(&f.firstSeed, "seed", 1, "first training seed")
			fs.IntVar(&f.n, "n", 2000, "images per FID: generated ones, and real ones drawn from the test split")
			fs.Uint64Var(&f.evalSeed, "eval-seed", 1, "seed of the FID's noise and of the real-image draw (the same for every run)")
			fs.BoolVar(&f.batchStats, "batch-stats", false, "generate FID images with batch norm normalising each batch of 100 by its own statistics (the reference DCGAN evaluation) instead of the running statistics")
			fs.IntVar(&f.batch, "batch", models.DefaultBatch, "batch size"+modelBatchDefaults())
			fs.Float64Var(&f.lr, "lr", 2e-4, "Adam learning rate")
			fs.IntVar(&f.ckptEvery, "checkpoint-every", 250, "rewrite each run's checkpoint every N steps (0: only at the end)")
			fs.IntVar(&f.logEvery, "log-every", 100, "print a progress line every N steps when not on a terminal")
			fs.Var(&f.options, "option", optionHelp())
			fs.StringVar(&f.metrics, "metrics", "fid", "set metrics of the generated images, comma-separated: fid (always measured) and others of eval's registry, e.g. prdc, kid; class-accuracy for conditional models")
			fs.StringVar(&f.baseline, "baseline", "fp32", "the policy every other row is tested against")
			fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the tests, Holm-corrected across rows")
			fs.StringVar(&f.plan, "plan", "", "plan file: written from the sweep flags if it does not exist (or sweep flags are given), else run")
			fs.StringVar(&f.shard, "shard", "", "run shard `i/n` of the plan: the runs whose index is i mod n")
			fs.IntVar(&f.shards, "shards", 0, "shard count, the index coming from "+experiment.EnvKubernetesIndex+" or "+experiment.EnvSlurmIndex+"; with --emit, the number of processes")
			fs.BoolVar(&f.merge, "merge", false, "write the table of the finished runs of the folders given as arguments")
			fs.StringVar(&f.emit, "emit", "", "print a launcher for the plan's shards: kubernetes (Indexed Job) or slurm (sbatch array)")
			fs.IntVar(&f.cpus, "cpus", experiment.DefaultResources.CPUs, "CPUs each shard requests (recorded in the plan)")
			fs.StringVar(&f.memory, "memory", strconv.Itoa(experiment.DefaultResources.MemoryMiB/1024)+"G", "memory each shard requests, e.g. 4G or 512M (recorded in the plan)")
			fs.StringVar(&f.image, "image", "positgan:latest", "--emit kubernetes: container image with the positgan binary")
			fs.StringVar(&f.claim, "claim", "positgan-out", "--emit kubernetes: PersistentVolumeClaim mounted at the plan's output root")
			fs.StringVar(&f.jobName, "job-name", "positgan-compare", "--emit: the job's name")
			return func(args []string, io stdio) error {
				f.set = givenFlags(fs)
				modelDefaults(f.model, f.set, &f.dataset, &f.batch, false) // as positgan train's (train.go)
				if f.merge {
					return runMerge(f, args, io)
				}
				if len(args) > 0 {
					return usagef("unexpected argument %q (compare takes only flags, but for --merge)", args[0])
				}
				if f.plan != "" {
					return runPlan(f, io)
				}
				for _, n := range []string{"shard", "shards", "emit"} {
					if f.set[n] {
						return usagef("--%s needs --plan", n)
					}
				}
				return runCompare(f, io)
			}
		},
	}
}

// compareFlagOf names the flag of each experiment.Sweep field.
var compareFlagOf = map[string]string{
	"Model": "model", "Dataset": "dataset", "Policies": "policies", "Seeds": "seeds", "FirstSeed": "seed",
	"Steps": "steps", "Batch": "batch", "LR": "lr", "CheckpointEvery": "checkpoint-every", "N": "n",
	"EvalSeed": "eval-seed", "Features": "features", "Out": "out", "Options": "option",
	"Metrics": "metrics", "Baseline": "baseline", "Alpha": "alpha",
}

// sweep returns the sweep the flags describe.
func (f *compareFlags) sweep(io stdio) experiment.Sweep {
	return experiment.Sweep{
		Model: f.model, Dataset: f.dataset, Policies: experiment.SplitPolicies(f.policies),
		Seeds: f.seeds, FirstSeed: f.firstSeed, Steps: f.steps, Batch: f.batch, LR: f.lr,
		CheckpointEvery: f.ckptEvery, N: f.n, EvalSeed: f.evalSeed, BatchStats: f.batchStats, Features: f.features, Out: f.out,
		Options: f.options, Log: io.err, // Progress: set by the caller, which knows the runs
		Metrics: splitList(f.metrics), Baseline: f.baseline, Alpha: f.alpha,
	}
}

// table returns the table settings the flags give.
func (f *compareFlags) table() experiment.TableSettings {
	return experiment.TableSettings{Metrics: splitList(f.metrics), Baseline: f.baseline, Alpha: f.alpha}
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func runCompare(f *compareFlags, io stdio) error {
	if f.logEvery < 0 {
		return usagef("--log-every %d: must not be negative", f.logEvery)
	}
	s := f.sweep(io)
	runs, _ := s.Runs() // an error is Compare's to report
	s.Progress = experiment.ProgressOf(io.err, runs, s.Steps, f.logEvery, experiment.Shard{})
	ctx, stop := experiment.Interruptible(io.err)
	defer stop()
	t, err := experiment.Compare(ctx, s)
	if err != nil {
		return compareError(err)
	}
	return t.WriteMarkdown(io.out)
}

// compareError turns the errors of package experiment into the command's.
func compareError(err error) error {
	var ce *experiment.ConfigError
	var re *experiment.RunError
	var pe *experiment.PlanError
	var se *experiment.ShardError
	var sce *experiment.ShardCountError
	switch {
	case errors.As(err, &sce) && sce.Shard != "":
		return usagef("--shard %s and --shards %d disagree", sce.Shard, sce.Count)
	case errors.As(err, &sce):
		return usagef("--shards %d: %v", sce.Count, sce.Err)
	case errors.As(err, &pe), errors.As(err, &se):
		return usageError{err}
	case errors.As(err, &ce):
		v := ""
		if ce.Value != "" {
			v = " " + ce.Value
		}
		return usagef("--%s%s: %v", compareFlagOf[ce.Field], v, ce.Err)
	case errors.As(err, &re) && errors.Is(err, gan.ErrInterrupted):
		return fmt.Errorf("interrupted during %s (checkpoint written): run the same command again to continue", re.Run)
	case errors.As(err, &re):
		return fmt.Errorf("%s: %w", re.Run, re.Err)
	}
	return err
}

// planFlags are the flags that describe a sweep: given with --plan, they
// write the plan rather than run it.
var planFlags = []string{"model", "dataset", "policies", "features", "steps", "seeds", "seed", "n", "eval-seed",
	"batch-stats", "batch", "lr", "checkpoint-every", "cpus", "memory", "option"}

// runPlan writes the plan file, runs it (all of it, or a shard), or emits
// a launcher for its shards.
func runPlan(f *compareFlags, io stdio) error {
	if f.logEvery < 0 {
		return usagef("--log-every %d: must not be negative", f.logEvery)
	}
	writing := false
	for _, n := range planFlags {
		writing = writing || f.set[n]
	}
	_, statErr := os.Stat(f.plan)
	if writing || errors.Is(statErr, os.ErrNotExist) {
		for _, n := range []string{"shard", "shards", "emit"} {
			if f.set[n] {
				return usagef("--%s runs an existing plan; write %s first (without --%s), or give no sweep flags", n, f.plan, n)
			}
		}
		return writePlan(f, io)
	}
	p, err := experiment.ReadPlan(f.plan)
	if err != nil {
		return compareError(err)
	}
	if f.emit != "" {
		return emitLauncher(f, p, io)
	}
	if f.set["out"] {
		p.Sweep.Out = f.out
	}
	sh, err := f.shardOf(os.Getenv)
	if err != nil {
		return err
	}
	p.Sweep.Log = io.err
	// The table's settings, not the plan's: they change no run.
	p.Sweep.SetTable(f.table())
	runs, _ := p.Runs() // an error is RunPlan's to report
	p.Sweep.Progress = experiment.ProgressOf(io.err, runs, p.Sweep.Steps, f.logEvery, sh)
	ctx, stop := experiment.Interruptible(io.err)
	defer stop()
	t, err := experiment.RunPlan(ctx, p, sh)
	if err != nil {
		return compareError(err)
	}
	if sh.Count == 0 {
		return t.WriteMarkdown(io.out)
	}
	fmt.Fprintf(io.out, "shard %s: %d of %d runs finished in %s; once every shard has, run: positgan compare --plan %s\n",
		sh, p.ShardLen(sh), p.Len(), p.Sweep.Out, f.plan)
	return nil
}

// shardOf returns the shard that --shard, or the batch system's
// environment (with --shards), names (experiment.SelectShard); the zero
// Shard if none does.
func (f *compareFlags) shardOf(getenv func(string) string) (experiment.Shard, error) {
	sh, err := experiment.SelectShard(f.shard, f.shards, getenv)
	return sh, compareError(err)
}

// writePlan writes the plan of the sweep flags to --plan, unless the file
// holds that plan already.
func writePlan(f *compareFlags, io stdio) error {
	mib, err := experiment.ParseMemory(f.memory)
	if err != nil {
		return usagef("--memory %s: %v", f.memory, err)
	}
	s := f.sweep(io)
	s.Log = nil
	p, err := experiment.NewPlan(s, experiment.Resources{CPUs: f.cpus, MemoryMiB: mib})
	if err != nil {
		return compareError(err)
	}
	upToDate, err := experiment.SavePlan(f.plan, p)
	switch {
	case errors.Is(err, experiment.ErrOtherPlan):
		return usagef("--plan %s: the file holds another plan; remove it or choose another name", f.plan)
	case err != nil:
		return compareError(err)
	case upToDate:
		fmt.Fprintf(io.out, "%s: up to date, %d runs into %s%s\n", f.plan, p.Len(), p.Sweep.Out, optionsNote(p.Sweep.Options))
		return nil
	}
	fmt.Fprintf(io.out, "%s: %d runs into %s%s; run them with positgan compare --plan %s [--shard i/n]\n",
		f.plan, p.Len(), p.Sweep.Out, optionsNote(p.Sweep.Options), f.plan)
	return nil
}

// optionsNote returns " (model options k=v,...)" for a plan's model
// options, or "" if it has none.
func optionsNote(o map[string]string) string {
	if len(o) == 0 {
		return ""
	}
	m := modelOptions(o)
	return " (model options " + m.String() + ")"
}

// emitLauncher prints a Kubernetes manifest or a Slurm script for the
// plan's shards.
func emitLauncher(f *compareFlags, p *experiment.Plan, io stdio) error {
	if f.shards <= 0 {
		return usagef("--emit %s: give the number of shards with --shards n", f.emit)
	}
	plan, err := filepath.Abs(f.plan)
	if err != nil {
		return err
	}
	l := experiment.Launch{Shards: f.shards, Name: f.jobName, PlanPath: plan, Image: f.image, Claim: f.claim}
	out, err := experiment.Emit(f.emit, p, l)
	if errors.Is(err, experiment.ErrUnknownLauncher) {
		return usagef("--emit %q: want kubernetes or slurm", f.emit)
	} else if err != nil {
		return compareError(err)
	}
	_, err = io.out.Write(out)
	return err
}

// runMerge writes the table of the finished runs in the folders given.
func runMerge(f *compareFlags, dirs []string, io stdio) error {
	if len(dirs) == 0 {
		return usagef("--merge: give the output folders of the shards")
	}
	var table *experiment.TableSettings // nil: the plan's; with --plan, the flags' always
	if t := f.table(); f.plan != "" || f.set["metrics"] || f.set["baseline"] || f.set["alpha"] {
		table = &t
	}
	out := dirs[0]
	if f.set["out"] {
		out = f.out
	}
	t, err := experiment.MergeFolders(f.plan, dirs, out, table)
	if t != nil {
		if werr := t.WriteMarkdown(io.out); werr != nil && err == nil {
			err = werr
		}
	}
	return compareError(err)
}
