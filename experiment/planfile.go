package experiment

import (
	"errors"
	"fmt"
	"os"
)

// ErrOtherPlan is the error of SavePlan when the file holds another plan.
var ErrOtherPlan = errors.New("experiment: the plan file holds another plan")

// SavePlan writes p to the file name (WritePlan), unless it holds p
// already, with the same output root: then it reports upToDate. A file
// holding another plan is left as it is, with an error wrapping
// ErrOtherPlan.
func SavePlan(name string, p *Plan) (upToDate bool, err error) {
	if old, err := ReadPlan(name); err == nil {
		if !old.Equal(p) || old.Sweep.Out != p.Sweep.Out {
			return false, fmt.Errorf("%w: %s", ErrOtherPlan, name)
		}
		return true, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return false, WritePlan(name, p)
}

// ErrUnknownLauncher is the error of Emit for a batch system it does not
// know.
var ErrUnknownLauncher = errors.New("experiment: unknown launcher")

// Emit returns the launcher of p's shards for the batch system kind:
// kubernetes (Kubernetes) or slurm (Slurm).
func Emit(kind string, p *Plan, l Launch) ([]byte, error) {
	switch kind {
	case "kubernetes":
		return Kubernetes(p, l)
	case "slurm":
		return Slurm(p, l)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownLauncher, kind)
}

// ShardLen returns the number of p's runs in shard sh (all of them for
// the zero Shard).
func (p *Plan) ShardLen(sh Shard) int {
	n := 0
	for i := range p.Len() {
		if sh.Has(i) {
			n++
		}
	}
	return n
}
