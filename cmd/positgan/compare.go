package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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
}

func compareCmd() *command {
	return &command{name: "compare", usage: "[flags]",
		summary: "train a GAN in several policies over several seeds and tabulate FID\n\n" +
			"For every policy of --policies and every seed, trains --model on --dataset for --steps steps\n" +
			"into --out/<policy>/seed<k>/ (as positgan train does), then measures the FID of --n generated\n" +
			"images (fixed seeded noise; for CGAN, labels cycling through the classes) against --n images\n" +
			"of the data set's test split, with the feature network --features. The FID is named after\n" +
			"that network, e.g. FID (LeNet-MNIST): it is not the Inception FID of the literature.\n" +
			"Writes --out/results.md and results.csv (mean ± sample std over seeds), runs.csv (one line\n" +
			"per run), fid.png (bar chart with error bars) and grids/<policy>.png (the first seed's\n" +
			"sample grid; grids.png has them side by side). The table is rewritten after every run; running the same command again\n" +
			"skips finished runs and resumes a half-trained one from its checkpoint, bit for bit.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			f := &compareFlags{}
			fs.StringVar(&f.model, "model", models.CGAN, "registered model that makes images from noise: "+strings.Join(models.Names(), ", "))
			fs.StringVar(&f.dataset, "dataset", "mnist", "mnist, fashion-mnist, or an IDX directory with a test split")
			fs.StringVar(&f.policies, "policies", "fp32,fp16,posit8+,posit8,fp8-ibm", "quantization policies, comma-separated: presets or .toml files")
			fs.StringVar(&f.out, "out", filepath.Join("out", "compare"), "output folder")
			fs.StringVar(&f.features, "features", "", "feature network of the FID: "+featnet.Specs+" (default: lenet-mnist for mnist, lenet-fashion for fashion-mnist)")
			fs.IntVar(&f.steps, "steps", defaultTrainSteps, "training steps per run")
			fs.IntVar(&f.seeds, "seeds", 3, "runs per policy, with seeds --seed, --seed+1, ...")
			fs.Uint64Var(&f.firstSeed, "seed", 1, "first training seed")
			fs.IntVar(&f.n, "n", 2000, "images per FID: generated ones, and real ones drawn from the test split")
			fs.Uint64Var(&f.evalSeed, "eval-seed", 1, "seed of the FID's noise and of the real-image draw (the same for every run)")
			fs.BoolVar(&f.batchStats, "batch-stats", false, "generate FID images with batch norm normalising each batch of 100 by its own statistics (the reference DCGAN evaluation) instead of the running statistics")
			fs.IntVar(&f.batch, "batch", 64, "batch size")
			fs.Float64Var(&f.lr, "lr", 2e-4, "Adam learning rate")
			fs.IntVar(&f.ckptEvery, "checkpoint-every", 250, "rewrite each run's checkpoint every N steps (0: only at the end)")
			fs.IntVar(&f.logEvery, "log-every", 100, "print a progress line every N steps when not on a terminal")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q (compare takes only flags)", args[0])
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
	"EvalSeed": "eval-seed", "Features": "features", "Out": "out",
}

func runCompare(f *compareFlags, io stdio) error {
	if f.logEvery < 0 {
		return usagef("--log-every %d: must not be negative", f.logEvery)
	}
	s := experiment.Sweep{
		Model: f.model, Dataset: f.dataset, Policies: splitPolicies(f.policies),
		Seeds: f.seeds, FirstSeed: f.firstSeed, Steps: f.steps, Batch: f.batch, LR: f.lr,
		CheckpointEvery: f.ckptEvery, N: f.n, EvalSeed: f.evalSeed, BatchStats: f.batchStats, Features: f.features, Out: f.out,
		Log: io.err,
		Progress: func(r experiment.Run, start int, cols []string) func(experiment.StepStats, time.Duration) {
			return progressReporter(io, r.String(), cols, start, f.steps, f.logEvery)
		},
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan struct{})
	defer close(done) // runs before stop: the watcher returns quietly
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			select {
			case <-done: // cancelled by the deferred stop: no signal came
				return
			default:
			}
			stop() // a second Ctrl-C kills at once
			fmt.Fprintln(io.err, "\ninterrupted: finishing the step and writing the checkpoint (Ctrl-C again to abort)")
		}
	}()
	t, err := experiment.Compare(ctx, s)
	var ce *experiment.ConfigError
	var re *experiment.RunError
	switch {
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
	case err != nil:
		return err
	}
	return t.WriteMarkdown(io.out)
}
