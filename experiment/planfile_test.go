package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/experiment"
)

// SavePlan writes a plan once, is up to date for the same plan, and
// leaves a file holding another plan alone.
func TestSavePlan(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "plan.json")
	p, err := experiment.NewPlan(tinySweep("mnist", filepath.Join(dir, "out"), 2), experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	if up, err := experiment.SavePlan(name, p); up || err != nil {
		t.Fatalf("first save: up to date %v, %v", up, err)
	}
	written, _ := os.ReadFile(name)
	if up, err := experiment.SavePlan(name, p); !up || err != nil {
		t.Errorf("second save: up to date %v, %v", up, err)
	}
	s := tinySweep("mnist", filepath.Join(dir, "out"), 3) // another length
	q, err := experiment.NewPlan(s, experiment.DefaultResources)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.SavePlan(name, q); !errors.Is(err, experiment.ErrOtherPlan) {
		t.Errorf("another plan: %v, want ErrOtherPlan", err)
	}
	if now, _ := os.ReadFile(name); string(now) != string(written) {
		t.Error("the file of another plan was rewritten")
	}
	// tinySweep: 2 policies × 2 seeds.
	if n, m := p.ShardLen(experiment.Shard{}), p.ShardLen(experiment.Shard{Index: 1, Count: 3}); n != 4 || m != 1 {
		t.Errorf("ShardLen: all %d, shard 1/3 %d; want 4, 1 (run 1)", n, m)
	}
	if _, err := experiment.Emit("pbs", p, experiment.Launch{Shards: 2}); !errors.Is(err, experiment.ErrUnknownLauncher) {
		t.Errorf("Emit pbs: %v, want ErrUnknownLauncher", err)
	}
}
