package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
)

// checkNoRun refuses to start a run from scratch in a folder that holds
// one, unless overwrite is set: a finished run is replaced only on
// request.
func checkNoRun(dir string, overwrite bool) error {
	if p := experiment.RunIn(dir); p != "" && !overwrite {
		return usagef("%s holds a run (%s): continue it with --resume, replace it with --overwrite, or choose another --out", dir, filepath.Base(p))
	}
	return nil
}

// claimRunFolders claims the folders (experiment.ClaimFolders). Runs from
// scratch (fromScratch: without --resume) must find their folders
// holding no run unless overwrite is set, in which case the run's files
// are removed: checked again now that the folders are ours. The returned
// func releases the locks.
func claimRunFolders(dirs []string, fromScratch, overwrite bool, log io.Writer) (release func(), err error) {
	return experiment.ClaimFolders(dirs, log, func(i int) error {
		if !fromScratch {
			return nil
		}
		if err := checkNoRun(dirs[i], overwrite); err != nil {
			return err
		}
		if overwrite {
			if err := experiment.RemoveRun(dirs[i]); err != nil {
				return fmt.Errorf("--overwrite: %w", err)
			}
		}
		return nil
	})
}

// resumeDefaults returns the configuration of the first resumed run
// (nil: none), in which runs without a checkpoint start, and takes its
// seed, learning rate, bias interval and width for them (and run.toml)
// where the flags are not given.
func resumeDefaults(f *trainFlags, first *experiment.Resumed) models.Config {
	if first == nil {
		return models.Config{}
	}
	o, cfg := first.State.Options, first.Config
	if !f.set["seed"] {
		f.seed = o.Seed
	}
	if !f.set["lr"] {
		f.lr = o.LR
	}
	if !f.set["bias-every"] {
		f.biasEvery = o.BiasEvery
	}
	if !f.set["features"] {
		f.features = cfg.Features // so that run.toml holds the width trained
	}
	if !f.set["option"] && len(cfg.Options) > 0 {
		f.options = modelOptions(maps.Clone(cfg.Options)) // and the model's options
	}
	return cfg
}
