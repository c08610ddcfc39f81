package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/positgan/positgan/experiment"
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
