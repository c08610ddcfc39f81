package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/runlock"
	"github.com/positgan/positgan/models"
)

// runFiles are the files a training run writes in its folder, as globs.
var runFiles = []string{"checkpoint.safetensors", "checkpoint_*.safetensors", "log.csv", "samples.png", "samples_*.png", "result.json", "losses.png", runConfigFile}

// runIn returns the file that shows dir holds a run (its checkpoint or
// log), or "" if it holds none.
func runIn(dir string) string {
	for _, name := range []string{"checkpoint.safetensors", "log.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// checkNoRun refuses to start a run from scratch in a folder that holds
// one, unless overwrite is set: a finished run is replaced only on
// request.
func checkNoRun(dir string, overwrite bool) error {
	if p := runIn(dir); p != "" && !overwrite {
		return usagef("%s holds a run (%s): continue it with --resume, replace it with --overwrite, or choose another --out", dir, filepath.Base(p))
	}
	return nil
}

// claimRunFolders locks each folder for this process and removes the
// temporary files killed writers left there. Folders that must be empty
// (empty[i]: a run from scratch without --resume) must hold no run unless
// overwrite is set, in which case the run's files are removed: checked
// again now that the folders are ours. The returned func releases the
// locks.
func claimRunFolders(dirs []string, empty []bool, overwrite bool, log io.Writer) (release func(), err error) {
	var locks []*runlock.Lock
	releaseAll := func() {
		for _, l := range locks {
			l.Release()
		}
	}
	defer func() {
		if err != nil {
			releaseAll()
		}
	}()
	for i, dir := range dirs {
		l, err := runlock.Acquire(dir)
		if err != nil {
			return nil, err
		}
		locks = append(locks, l)
		if removed, err := atomicfile.RemoveTemps(dir); err != nil {
			return nil, err
		} else if len(removed) > 0 {
			fmt.Fprintf(log, "removed %d temporary files left by an interrupted write in %s\n", len(removed), dir)
		}
		if !empty[i] {
			continue
		}
		if err := checkNoRun(dir, overwrite); err != nil {
			return nil, err
		}
		if overwrite {
			if err := removeRun(dir); err != nil {
				return nil, err
			}
		}
	}
	return releaseAll, nil
}

// removeRun removes the files of the run in dir.
func removeRun(dir string) error {
	for _, g := range runFiles {
		ps, _ := filepath.Glob(filepath.Join(dir, g))
		for _, p := range ps {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("--overwrite: %w", err)
			}
		}
	}
	return nil
}

// checkResumable is the check of --resume when the runs in dirs whose
// checkpoints are missing would start from scratch (a run interrupted
// before its first checkpoint, or a policy not started yet): that is
// refused only when no run in dirs was ever started, which is a wrong
// --out rather than an interruption.
func checkResumable(dirs []string, missing []bool) error {
	var paths []string
	for i, dir := range dirs {
		if !missing[i] || runIn(dir) != "" {
			return nil
		}
		paths = append(paths, filepath.Join(dir, "checkpoint.safetensors"))
	}
	return fmt.Errorf("--resume: no checkpoint %s", strings.Join(paths, ", "))
}

// resumeDefaults returns the configuration of the first resumed run, in
// which runs without a checkpoint start, and takes its seed, learning
// rate, bias interval and width for them (and run.toml) where the flags
// are not given.
func resumeDefaults(f *trainFlags, saved []*ckpt.Checkpoint) (models.Config, error) {
	for _, c := range saved {
		if c == nil {
			continue
		}
		st, err := gan.ReadState(c)
		if err != nil {
			return models.Config{}, err
		}
		cfg, err := models.ConfigOf(c)
		if err != nil {
			return models.Config{}, err
		}
		o := st.Options
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
		return cfg, nil
	}
	return models.Config{}, nil
}
