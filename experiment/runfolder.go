package experiment

// The folder of a training run: which files make a run, and claiming
// folders for the runs of one process. positgan train uses them for its
// runs as a sweep does for its own.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/runlock"
)

// RunConfigFile is the file in a run folder that holds every setting of
// the run, as positgan train's flags: train --config reads it back, so
// that a run is repeated from its folder alone.
const RunConfigFile = "run.toml"

// PolicyLabel names the run folder of a policy given as policy.Parse
// reads it: the preset name, or the policy file's base name.
func PolicyLabel(arg string) string {
	if strings.HasSuffix(arg, ".toml") || strings.ContainsRune(arg, os.PathSeparator) {
		return strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg))
	}
	return arg // a preset name
}

// RunIn returns the file that shows dir holds a run (its checkpoint or
// log), or "" if it holds none.
func RunIn(dir string) string {
	for _, name := range []string{checkpointFile, "log.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// RemoveRun removes the files a training run writes in dir: its
// checkpoints, log, samples, result, loss plot and settings.
func RemoveRun(dir string) error {
	for _, g := range []string{checkpointFile, "checkpoint_*.safetensors", "log.csv", "samples.png", "samples_*.png",
		ResultFile, "losses.png", RunConfigFile} {
		ps, _ := filepath.Glob(filepath.Join(dir, g))
		for _, p := range ps {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// ClaimFolders locks each folder of dirs for this process (they must
// exist) and removes the temporary files that killed writers left there,
// saying so on log. With the folder locked, it then calls then(i) for
// dirs[i] if then is not nil, to check or clear the folder now that it
// is ours. On an error it releases the locks it took; otherwise the
// returned func releases them.
func ClaimFolders(dirs []string, log io.Writer, then func(i int) error) (release func(), err error) {
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
		if then != nil {
			if err := then(i); err != nil {
				return nil, err
			}
		}
	}
	return releaseAll, nil
}
