package compute

import (
	"os"
	"slices"
	"testing"

	"github.com/positgan/positgan/quant"
)

// TestLevels checks that every group of kernels reports a level this CPU
// has, and the one quant.CPUEnv asks for where it asks for one.
func TestLevels(t *testing.T) {
	ls, err := Levels()
	avail := AvailableLevels()
	if len(avail) == 0 || avail[0] != "generic" {
		t.Fatalf("AvailableLevels() = %v, want generic first", avail)
	}
	env := os.Getenv(quant.CPUEnv)
	for _, l := range ls {
		if !slices.Contains(avail, l.Level) {
			t.Errorf("%s runs at %q, not among %v", l.Kernels, l.Level, avail)
		}
		if l.Kernels == "matrix multiply" && Name() == "openblas" {
			continue // a cgo build holds no Go assembly
		}
		if err == nil && env != "" && slices.Contains(avail, env) && l.Level != env {
			t.Errorf("%s=%s: %s runs at %q", quant.CPUEnv, env, l.Kernels, l.Level)
		}
	}
}
