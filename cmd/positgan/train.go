package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// defaultTrainSteps is the default length of a run: with the default CGAN
// on MNIST, enough for recognisable digits, and short enough that the
// default command (two policies) takes a few minutes on two cores.
const defaultTrainSteps = 1000

// trainFlags are the flags of positgan train.
type trainFlags struct {
	experiment.TrainSettings // the settings a resumed checkpoint may supply; Given: the flags given
	policies, out            string
	steps, epochs            int
	resume, keep, overwrite  bool
	sampleEvery, ckptEvery   int
	logEvery                 int
	flags                    *flag.FlagSet // all of them, for run.toml
}

func trainCmd() *command {
	return &command{name: "train", usage: "[flags]",
		summary: "train a registered model in one or more quantization policies\n\n" +
			"Trains --model on --dataset once per policy of --policy (a comma-separated list), each into\n" +
			"its own folder --out/<policy> (or --out itself for a single policy): log.csv (losses and\n" +
			"timing per step), samples_<step>.png (fixed-noise grids; one row per class for CGAN),\n" +
			"samples.png and checkpoint.safetensors (written when the run ends, also on Ctrl-C), and\n" +
			"run.toml (every setting; train --config run.toml repeats the run). --resume continues each\n" +
			"run from its checkpoint, bit for bit.\n\nModels:\n" + modelList(),
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			f := &trainFlags{flags: fs}
			config := fs.String("config", "", "read the settings from a run's "+runConfigFile+" (flags given here override it)")
			fs.StringVar(&f.Model, "model", models.CGAN, "registered model: "+strings.Join(models.Names(), ", "))
			fs.StringVar(&f.Dataset, "dataset", models.DefaultDataset, "mnist, fashion-mnist, an IDX file or folder, or a folder of images"+modelDatasetDefaults())
			fs.StringVar(&f.policies, "policy", "fp32,posit8+", "quantization policies, comma-separated: presets (fp32, fp16, posit8, posit8+, posit6-deploy, fp8-ibm, ...) or .toml files")
			fs.StringVar(&f.out, "out", "out", "output folder")
			fs.IntVar(&f.steps, "steps", defaultTrainSteps, "train up to this many steps (one D and one G update each)")
			fs.IntVar(&f.epochs, "epochs", 0, "train for this many epochs of the data instead of --steps")
			fs.IntVar(&f.Batch, "batch", models.DefaultBatch, "batch size"+modelBatchDefaults())
			fs.Uint64Var(&f.Seed, "seed", 1, "seed of initialisation, noise, data order and stochastic rounding")
			fs.BoolVar(&f.resume, "resume", false, "continue each run from the checkpoint in its output folder (runs without one start)")
			fs.BoolVar(&f.overwrite, "overwrite", false, "replace a run already in the output folder")
			fs.IntVar(&f.sampleEvery, "sample-every", 250, "write a sample grid every N steps (0: only at the end)")
			fs.IntVar(&f.ckptEvery, "checkpoint-every", 500, "rewrite the checkpoint every N steps (0: only at the end)")
			fs.BoolVar(&f.keep, "keep-checkpoints", false, "also keep checkpoint_<step>.safetensors at every checkpoint")
			fs.IntVar(&f.logEvery, "log-every", 100, "print a progress line every N steps when not on a terminal")
			fs.IntVar(&f.BiasEvery, "bias-every", 0, "re-estimate exponent biases from histograms every N steps (0: keep the policy's)")
			fs.Float64Var(&f.LR, "lr", 2e-4, "Adam learning rate (β1 0.5, β2 0.999)")
			fs.IntVar(&f.ImageSize, "image-size", 0, "resize images to N×N (0: the data's own size; 64 for image folders)")
			fs.IntVar(&f.Channels, "channels", 0, "1 or 3 image channels (0: the data's own; image folders: 3)")
			fs.IntVar(&f.Features, "features", 0, "width unit F of the networks (0: the model's default)")
			fs.Var((*modelOptions)(&f.Options), "option", optionHelp())
			return func(args []string, io stdio) error {
				f.Given = givenFlags(fs)
				if len(args) > 0 {
					return usagef("unexpected argument %q (train takes only flags)", args[0])
				}
				if *config != "" {
					if err := applyRunConfig(fs, *config, f.Given); err != nil {
						return err
					}
				}
				return runTrain(f, io)
			}
		},
	}
}

func runTrain(f *trainFlags, io stdio) error {
	l := experiment.TrainLoop{Model: f.Model, Steps: f.steps, SampleEvery: f.sampleEvery, CheckpointEvery: f.ckptEvery,
		KeepCheckpoints: f.keep, LogEvery: f.logEvery}
	var se *experiment.TrainSettingError
	if err := f.Check(l, f.epochs); errors.As(err, &se) {
		return usagef("--%s %v: %s", se.Setting, se.Value, se.Reason)
	} else if f.resume && f.overwrite {
		return usagef("--resume and --overwrite exclude each other")
	}
	if _, err := models.Lookup(f.Model); err != nil {
		return usagef("--model %q: want one of %s", f.Model, strings.Join(models.Names(), ", "))
	}
	if err := checkOptions(f.Model, f.Options); err != nil {
		return err
	}

	// Policies first: they are cheap to check and the commonest typo.
	ps, err := experiment.ParsePolicies(experiment.SplitPolicies(f.policies))
	var ce *experiment.ConfigError
	switch {
	case errors.Is(err, experiment.ErrPolicyTwice) && errors.As(err, &ce):
		return usagef("--policy: %s given twice", ce.Value)
	case errors.As(err, &ce):
		return usageError{fmt.Errorf("--policy %s: %w", ce.Value, ce.Err)}
	}
	runs := experiment.TrainRuns(f.out, ps)

	// Checkpoints to resume from, before the data (which takes longer).
	// Runs without one (not started, or stopped before their first
	// checkpoint) start from scratch, in the resumed runs' settings.
	var dirs []string
	for _, r := range runs {
		dirs = append(dirs, r.Dir)
		if !f.resume {
			if err := checkNoRun(r.Dir, f.overwrite); err != nil {
				return err
			}
		}
	}
	var cfg models.Config
	if f.resume {
		if cfg, err = f.ResumeRuns(runs); err != nil {
			return resumeError(err)
		}
	}

	// The model's own data set and batch, when not given (nor resumed).
	modelDefaults(f.Model, f.Given, &f.Dataset, &f.Batch, f.resume)
	// One data set per domain of the model, as the model loads them.
	sets, err := models.TrainData(f.Model, models.DataSettings{Dataset: f.Dataset, Size: f.ImageSize,
		Channels: f.Channels, Seed: f.Seed, Batch: f.Batch})
	var de *models.DataSettingError
	if errors.As(err, &de) {
		return usagef("--%s %d: %s", de.Setting, de.Value, de.Reason)
	} else if err != nil {
		return err
	}
	if f.Dataset == datasets.SRPhotos {
		if note := datasets.SRPhotosMissing(); note != "" {
			fmt.Fprintf(io.err, "warning: %s; training on the others\n", note)
		}
	}
	ds, data := sets.First, sets.Data
	if cfg.Arch == "" {
		if cfg, err = trainConfig(f, ds); err != nil {
			return err
		}
	}
	if ds.Len() < f.Batch {
		return usagef("--batch %d: the data set has only %d images", f.Batch, ds.Len())
	}
	steps := f.steps
	if f.epochs > 0 {
		steps = f.epochs * (ds.Len() / f.Batch)
	}

	o := gan.Options{Batch: f.Batch, Seed: f.Seed, LR: f.LR, BiasEvery: f.BiasEvery, Steps: steps}
	if err := experiment.StartRuns(runs, cfg, data, o, io.err); err != nil {
		return err
	}
	release, err := claimRunFolders(dirs, !f.resume, f.overwrite, io.err)
	if err != nil {
		return err
	}
	defer release()
	// Each run's settings, which train --config reads back.
	for _, r := range runs {
		set := map[string]string{"policy": r.Spec, "out": r.Dir}
		if err := writeRunConfig(filepath.Join(r.Dir, runConfigFile), f.flags, set); err != nil {
			return err
		}
	}
	experiment.SetLater(runs, steps) // for the ETA of all runs

	ctx, stop := experiment.Interruptible(io.err)
	defer stop()
	l.Dataset, l.Steps = f.Dataset, steps
	err = experiment.TrainAll(ctx, runs, ds, l, io.out, io.err)
	if errors.Is(err, gan.ErrInterrupted) {
		return fmt.Errorf("interrupted: continue with the same command and --resume")
	}
	return err
}

// modelDefaults gives --dataset and --batch, when not given, the model's
// training defaults (experiment.UseModelDefaults): train and compare
// both call it, so that they train a model alike.
func modelDefaults(model string, set map[string]bool, dataset *string, batch *int, keepBatch bool) {
	experiment.UseModelDefaults(model, set, dataset, batch, keepBatch)
}

// modelDatasetDefaults and modelBatchDefaults describe, for --help, the
// models whose training defaults differ from the common ones, e.g. " (by
// default mnist-fashion for cyclegan, sr-photos for esrgan)"; "" if none.
func modelDatasetDefaults() string {
	return models.DefaultsNote(func(d models.TrainDefaults) string {
		if d.Dataset == models.DefaultDataset {
			return ""
		}
		return d.Dataset
	})
}

func modelBatchDefaults() string {
	return models.DefaultsNote(func(d models.TrainDefaults) string {
		if d.Batch == models.DefaultBatch {
			return ""
		}
		return strconv.Itoa(d.Batch)
	})
}

// resumeError words the errors of resuming runs
// (experiment.TrainSettings.ResumeRuns): a checkpoint that differs is a
// usage error naming the flags.
func resumeError(err error) error {
	var me *experiment.ResumeMismatchError
	var ne *experiment.NoCheckpointError
	switch {
	case errors.As(err, &ne):
		return fmt.Errorf("--resume: no checkpoint %s", strings.Join(ne.Paths, ", "))
	case !errors.As(err, &me):
		return err
	}
	var bad []string
	for _, d := range me.Mismatches {
		switch d.Setting {
		case experiment.SettingOption:
			bad = append(bad, fmt.Sprintf("--option %s=%s (checkpoint: %s)", d.Option, d.Want, cmp.Or(d.Saved, "not set")))
		case experiment.SettingPolicy:
			bad = append(bad, fmt.Sprintf("--policy %s differs from the checkpoint's policy", me.Run.Label))
		default:
			bad = append(bad, fmt.Sprintf("--%s %s (checkpoint: %s)", d.Setting, d.Want, d.Saved))
		}
	}
	return usagef("--resume: %s", strings.Join(bad, ", "))
}

// trainConfig returns the model configuration for the data set.
func trainConfig(f *trainFlags, ds *datasets.Set) (models.Config, error) {
	cfg, err := experiment.ModelConfig(f.Model, ds, f.Features, f.Options)
	var le *experiment.LabelsError
	if errors.As(err, &le) {
		return cfg, usagef("--model %s needs labelled data (2 or more classes); %s has %d: use --model dcgan", f.Model, f.Dataset, le.Classes)
	} else if err != nil {
		// The data's size is at fault only if the model refuses it
		// without the options too.
		if _, plain := experiment.ModelConfig(f.Model, ds, f.Features, nil); len(f.Options) > 0 && plain == nil {
			o := modelOptions(f.Options)
			return cfg, usageError{fmt.Errorf("--option %s: %w", o.String(), err)}
		}
		return cfg, usageError{fmt.Errorf("%w (data: %v images; set --image-size)", err, ds.Shape())}
	}
	return cfg, nil
}

// modelList returns one line per registered model: its name and summary.
func modelList() string {
	var b strings.Builder
	for _, n := range models.Names() {
		s, _ := models.Lookup(n)
		fmt.Fprintf(&b, "  %-8s %s\n", n, s.Summary)
	}
	return strings.TrimRight(b.String(), "\n")
}
