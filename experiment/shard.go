package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Shard is one of Count processes sharing a plan: it trains the runs
// whose index is Index modulo Count. The zero Shard is the whole plan.
type Shard struct {
	Index, Count int
}

// Has reports whether run i is the shard's.
func (sh Shard) Has(i int) bool { return sh.Count == 0 || i%sh.Count == sh.Index }

// String returns "i/n", the form ParseShard reads; "all" for the zero
// Shard.
func (sh Shard) String() string {
	if sh.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// A ShardError says why a shard's index or count is invalid, and where
// they came from.
type ShardError struct {
	Source string // "--shard", or the environment variable
	Value  string
	Err    error
}

func (e *ShardError) Error() string {
	return fmt.Sprintf("experiment: shard %s=%q: %v", e.Source, e.Value, e.Err)
}

func (e *ShardError) Unwrap() error { return e.Err }

func newShard(source, value string, i, n int) (Shard, error) {
	switch {
	case n <= 0:
		return Shard{}, &ShardError{source, value, fmt.Errorf("count %d: must be positive", n)}
	case i < 0 || i >= n:
		return Shard{}, &ShardError{source, value, fmt.Errorf("index %d outside 0..%d", i, n-1)}
	}
	return Shard{Index: i, Count: n}, nil
}

// ParseShard reads "i/n": shard i (from 0) of n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, &ShardError{"--shard", s, errors.New("want i/n, e.g. 0/4")}
	}
	return newShard("--shard", s, i, n)
}

// Environment variables of the batch systems that ShardFromEnv reads.
const (
	EnvKubernetesIndex = "JOB_COMPLETION_INDEX" // Kubernetes Indexed Job: 0..completions-1
	EnvSlurmIndex      = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount      = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin        = "SLURM_ARRAY_TASK_MIN" // subtracted from the task id
)

// ShardFromEnv returns the shard a batch system's environment names: a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX, with count (the job's
// completions, which the environment does not hold), or a Slurm job
// array's SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN) of
// SLURM_ARRAY_TASK_COUNT, which must equal count if count is not 0. ok is
// false if neither is set.
func ShardFromEnv(getenv func(string) string, count int) (sh Shard, ok bool, err error) {
	if v := getenv(EnvKubernetesIndex); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil {
			return Shard{}, true, &ShardError{EnvKubernetesIndex, v, errors.New("not an integer")}
		}
		if count <= 0 {
			return Shard{}, true, &ShardError{EnvKubernetesIndex, v, errors.New("the shard count (the job's completions) must be given too")}
		}
		sh, err := newShard(EnvKubernetesIndex, v, i, count)
		return sh, true, err
	}
	if v := getenv(EnvSlurmIndex); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil {
			return Shard{}, true, &ShardError{EnvSlurmIndex, v, errors.New("not an integer")}
		}
		if m := getenv(EnvSlurmMin); m != "" {
			lo, err := strconv.Atoi(m)
			if err != nil {
				return Shard{}, true, &ShardError{EnvSlurmMin, m, errors.New("not an integer")}
			}
			i -= lo
		}
		n := count
		if c := getenv(EnvSlurmCount); c != "" {
			if n, err = strconv.Atoi(c); err != nil {
				return Shard{}, true, &ShardError{EnvSlurmCount, c, errors.New("not an integer")}
			}
			if count > 0 && n != count {
				return Shard{}, true, &ShardError{EnvSlurmCount, c, fmt.Errorf("the array has %d tasks, the shard count is %d", n, count)}
			}
		}
		sh, err := newShard(EnvSlurmIndex, v, i, n)
		return sh, true, err
	}
	return Shard{}, false, nil
}

// RunPlan trains and measures the runs of shard sh of plan p that are not
// finished yet, in p.Sweep.Out (which may differ from the plan's): each
// run is claimed (a lock in its folder) for as long as it trains, so
// processes sharing the folder never train the same run, and a run a
// killed process left half-trained continues from its checkpoint, bit for
// bit. A run another process holds is left to it: once the shard's other
// runs are done, RunPlan returns a *RunError wrapping ErrBusy for it.
//
// The zero Shard runs the whole plan and writes the table files, as
// Compare does; a shard writes none, and Merge gathers the results. Both
// keep a copy of the plan in the folder (PlanFile); a folder holding
// another plan is a *ConfigError. The returned table has the results of
// the shard's runs.
func RunPlan(ctx context.Context, p *Plan, sh Shard) (*Table, error) {
	s := p.Sweep
	if err := s.check(); err != nil {
		return nil, err
	}
	if sh.Count < 0 || sh.Count > 0 && (sh.Index < 0 || sh.Index >= sh.Count) {
		return nil, &ShardError{"Shard", sh.String(), errors.New("index outside the count")}
	}
	runs, err := p.Runs()
	if err != nil {
		return nil, err
	}
	if s.Out == "" {
		return nil, configErrorf("Out", "", "empty folder name")
	}
	if err := os.MkdirAll(s.Out, 0o755); err != nil {
		return nil, fmt.Errorf("experiment: output folder: %w", err)
	}
	if err := p.record(s.Out); err != nil {
		return nil, err
	}
	return compare(ctx, s, runs, scope{shard: sh, table: sh.Count == 0})
}

// ErrIncomplete is wrapped by Merge's error when some runs of the plan
// are not finished in any of the folders.
var ErrIncomplete = errors.New("runs not finished")

// Merge gathers the finished runs of plan p from the output roots (the
// folders shards ran in; a run is taken from the first root where it is
// finished) and writes the table files of the sweep into out: the same
// results.md, results.csv, runs.csv, fid.png and grids that Compare
// writes. If p is nil, the plan is the PlanFile of the first root; a root
// holding another plan is a *ConfigError. If runs are missing, Merge
// writes the table of the others and returns it with an error wrapping
// ErrIncomplete. The table shows the figures of p.Sweep.Metrics that the
// runs recorded and tests its rows as p.Sweep's Baseline and Alpha say;
// nothing is measured.
func Merge(p *Plan, roots []string, out string) (*Table, error) {
	if len(roots) == 0 {
		return nil, configErrorf("Out", "", "no folders to merge")
	}
	for _, root := range roots {
		name := filepath.Join(root, PlanFile)
		q, err := ReadPlan(name)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if p == nil {
				return nil, &PlanError{Path: name, Err: errors.New("no plan to merge by: give the plan file")}
			}
			continue
		case err != nil:
			return nil, err
		case p == nil:
			p = q
		case !p.Equal(q):
			return nil, configErrorf("Out", root, "holds %s of another plan", PlanFile)
		}
	}
	s := p.Sweep
	if err := s.check(); err != nil {
		return nil, err
	}
	metric, columns, extra, err := s.measureNames()
	if err != nil {
		return nil, err
	}
	byRoot := make([][]Run, len(roots))
	for k, root := range roots {
		if byRoot[k], err = p.runsIn(root); err != nil {
			return nil, err
		}
	}
	s.Out = out
	runs, err := p.runsIn(out)
	if err != nil {
		return nil, err
	}
	t := &Table{Sweep: s, Metric: metric, Columns: columns, Extra: extra, Runs: runs, Results: make([]*Result, len(runs))}
	var missing []Run
	for i := range runs {
		for k := range roots {
			if res, ok := readResult(&s, byRoot[k][i], metric); ok {
				t.Results[i], t.Runs[i] = res, byRoot[k][i]
				break
			}
		}
		if t.Results[i] == nil {
			missing = append(missing, runs[i])
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("experiment: output folder: %w", err)
	}
	if err := t.writeFiles(); err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("experiment: %w: %d of %d (first %s)", ErrIncomplete, len(missing), len(runs), missing[0])
	}
	return t, nil
}
