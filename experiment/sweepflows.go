package experiment

// The flows of positgan compare around a plan: choosing the shard to run,
// reporting progress over the runs, and merging the shards' folders.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// A ShardCountError says why a shard count (Count) cannot be used with
// the shard given beside it (Shard) or, if Shard is "", on its own.
type ShardCountError struct {
	Count int
	Shard string // the "i/n" it disagrees with; "" if none was given
	Err   error
}

func (e *ShardCountError) Error() string {
	if e.Shard != "" {
		return fmt.Sprintf("experiment: shard %s and count %d: %v", e.Shard, e.Count, e.Err)
	}
	return fmt.Sprintf("experiment: shard count %d: %v", e.Count, e.Err)
}

func (e *ShardCountError) Unwrap() error { return e.Err }

// SelectShard returns the shard a process of a sweep runs: shard ("i/n",
// ParseShard) if it is not "", else the one a batch system's environment
// names (ShardFromEnv, with count shards); the zero Shard, all of the
// runs, if neither does. A count that is negative, disagrees with shard,
// or is given (not 0) where no index is set is a *ShardCountError; a
// shard or an environment that cannot be read, a *ShardError.
func SelectShard(shard string, count int, getenv func(string) string) (Shard, error) {
	if count < 0 {
		return Shard{}, &ShardCountError{Count: count, Err: errors.New("must be positive")}
	}
	if shard != "" {
		sh, err := ParseShard(shard)
		if err != nil {
			return sh, err
		}
		if count > 0 && count != sh.Count {
			return sh, &ShardCountError{Count: count, Shard: shard, Err: errors.New("disagree")}
		}
		return sh, nil
	}
	sh, ok, err := ShardFromEnv(getenv, count)
	if err != nil {
		return sh, err
	}
	if !ok && count > 0 {
		return sh, &ShardCountError{Count: count, Err: fmt.Errorf("the shard index comes from --shard i/n, %s or %s, and none is set",
			EnvKubernetesIndex, EnvSlurmIndex)}
	}
	return sh, nil
}

// ProgressOf returns a Sweep.Progress for the runs of a sweep, steps
// each: it reports each run's progress on w as Progress does (a line
// every logEvery steps when w is not a terminal), with the ETA of the runs
// of shard sh (all of them for the zero Shard) still to come after it.
func ProgressOf(w io.Writer, runs []Run, steps, logEvery int, sh Shard) func(Run, int, []string) func(StepStats, time.Duration) {
	return func(r Run, start int, cols []string) func(StepStats, time.Duration) {
		return Progress(w, r.String(), cols, start, steps, logEvery, LaterSteps(runs, r, steps, sh))
	}
}

// TableSettings are the settings of a sweep's table that change no run:
// the set metrics shown, and the baseline and level of the tests (the
// fields of Sweep of the same names).
type TableSettings struct {
	Metrics  []string
	Baseline string
	Alpha    float64
}

// SetTable sets the table settings of s.
func (s *Sweep) SetTable(t TableSettings) {
	s.Metrics, s.Baseline, s.Alpha = t.Metrics, t.Baseline, t.Alpha
}

// MergeFolders is Merge of the output roots into out, by the plan in the
// file plan, or if plan is "" by the plan Merge finds in the roots. With
// table set, the table has those settings rather than the plan's (the
// plan is then read here, from roots[0] if plan is "").
func MergeFolders(plan string, roots []string, out string, table *TableSettings) (*Table, error) {
	var p *Plan
	var err error
	switch {
	case plan != "":
		p, err = ReadPlan(plan)
	case table != nil && len(roots) > 0:
		p, err = ReadPlan(filepath.Join(roots[0], PlanFile))
	}
	if err != nil {
		return nil, err
	}
	if p != nil && table != nil {
		p.Sweep.SetTable(*table)
	}
	return Merge(p, roots, out)
}
