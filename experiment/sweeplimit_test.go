package experiment

import (
	"errors"
	"strings"
	"testing"
)

// A sweep with more runs than a plan may hold is refused before its runs
// are laid out (issue 29 item 8: --seeds 100000000 without --plan).
func TestSweepRunsBounded(t *testing.T) {
	for _, s := range []Sweep{
		{Policies: []string{"fp32"}, Seeds: 100000000, Out: "x"},
		{Policies: []string{"fp32", "posit8"}, Seeds: MaxPlanRuns/2 + 1, Out: "x"},
	} {
		runs, err := s.Runs()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "Seeds" || !strings.Contains(err.Error(), "at most 100000 runs") {
			t.Errorf("%d policies × %d seeds: Runs() = %d runs, %v; want a *ConfigError of Seeds", len(s.Policies), s.Seeds, len(runs), err)
		}
	}
	if runs, err := (Sweep{Policies: []string{"fp32", "posit8"}, Seeds: MaxPlanRuns / 2, Out: "x"}).Runs(); err != nil || len(runs) != MaxPlanRuns {
		t.Errorf("at the bound: %d runs, %v; want %d", len(runs), err, MaxPlanRuns)
	}
}
