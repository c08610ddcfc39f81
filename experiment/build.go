package experiment

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// BuildInfo describes the running build: the module version and VCS
// revision, the Go version, platform and CPU count, the compute backend
// and the CPU features the kernels use. It is what a result, a bug report
// or a benchmark figure needs to say which code ran how, and what
// positgan version prints.
func BuildInfo() string {
	var b strings.Builder
	mod, rev, dirty := "(devel)", "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		mod = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	fmt.Fprintf(&b, "positgan %s", mod)
	if rev != "" {
		fmt.Fprintf(&b, " %s%s", rev, dirty)
	}
	fmt.Fprintf(&b, "\n%s %s/%s, %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(&b, "matrix multiply: %s\n", compute.Name())
	var feats []string
	for _, f := range []struct {
		name string
		on   bool
	}{{"avx2", cpu.X86.HasAVX2}, {"fma", cpu.X86.HasFMA}, {"avx512f", cpu.X86.HasAVX512F}, {"avx512bw", cpu.X86.HasAVX512BW}, {"neon", cpu.ARM64.HasASIMD}} {
		if f.on {
			feats = append(feats, f.name)
		}
	}
	if len(feats) == 0 {
		feats = []string{"none used"}
	}
	fmt.Fprintf(&b, "cpu features: %s\n", strings.Join(feats, " "))
	levels, err := compute.Levels()
	var ls []string
	for _, l := range levels {
		ls = append(ls, l.Kernels+" "+l.Level)
	}
	fmt.Fprintf(&b, "kernel levels: %s (this CPU: %s; %s caps them)\n",
		strings.Join(ls, ", "), strings.Join(compute.AvailableLevels(), " "), quant.CPUEnv)
	if err != nil {
		fmt.Fprintf(&b, "warning: %v\n", err)
	}
	return b.String()
}
