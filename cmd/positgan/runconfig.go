package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/positgan/positgan/experiment"
)

// runConfigFile is the file in each run folder that holds every setting
// of the run (experiment.RunConfigFile).
const runConfigFile = experiment.RunConfigFile

// runConfigSkip are the flags that say how to start rather than what to
// train: not settings of the run, and not accepted in a run.toml.
var runConfigSkip = []string{"config", "resume", "overwrite"}

// writeRunConfig writes path, the run.toml of a run
// (experiment.WriteRunConfig): every flag of fs but runConfigSkip, with
// the values of set in place of the flags' (a run's own policy and
// folder).
func writeRunConfig(path string, fs *flag.FlagSet, set map[string]string) error {
	return experiment.WriteRunConfig(path, fs, set, runConfigSkip)
}

// applyRunConfig sets the flags of fs from the run.toml file path, but
// those in given (experiment.ApplyRunConfig); what the file says wrong is
// a usage error.
func applyRunConfig(fs *flag.FlagSet, path string, given map[string]bool) error {
	err := experiment.ApplyRunConfig(fs, path, given, runConfigSkip)
	var ce *experiment.RunConfigError
	if errors.As(err, &ce) {
		return usagef("--config %v", err)
	} else if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	return nil
}
