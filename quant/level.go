package quant

import (
	"fmt"
	"os"
	"strings"
)

// CPUEnv is the environment variable that caps the instruction-set level
// of the vector kernels, read once when the program starts: "avx512",
// "avx2" or "generic" (the portable Go kernels). Unset, the kernels use
// the best level the CPU has; a level above the CPU's gives the CPU's.
// Every level gives the same bits; the cap is there to test and measure
// the lower levels on a machine that has the higher ones.
const CPUEnv = "POSITGAN_CPU"

// level is an instruction-set level of the kernels, lowest first.
type level uint8

const (
	levelGeneric level = iota
	levelAVX2          // AVX2 and FMA
	levelAVX512        // AVX-512 F, with AVX2 and FMA
)

var levelNames = [...]string{"generic", "avx2", "avx512"}

func (l level) String() string { return levelNames[l] }

// parseLevel reads the value of CPUEnv: the cap it sets, and an error
// if it names no level (then there is no cap).
func parseLevel(s string) (level, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return levelAVX512, nil
	}
	for l, name := range levelNames {
		if s == name {
			return level(l), nil
		}
	}
	return levelAVX512, fmt.Errorf("quant: %s=%q names no kernel level (want avx512, avx2 or generic); ignored", CPUEnv, s)
}

// The level in use, set once by init (level_amd64.go, level_other.go)
// from the CPU and CPUEnv; tests switch it with useLevel and restore it.
var (
	levelCap, levelErr = parseLevel(os.Getenv(CPUEnv))
	levelInUse         = min(cpuLevel(), levelCap)
)

func init() { useLevel(levelInUse) }

// KernelLevel names the instruction-set level the package's vector
// kernels run at ("avx512", "avx2" or "generic"), and returns an error
// if CPUEnv is set to no level.
func KernelLevel() (string, error) { return levelInUse.String(), levelErr }

// KernelLevels lists the levels this CPU can run, lowest first, whatever
// CPUEnv says.
func KernelLevels() []string {
	var ls []string
	for l := levelGeneric; l <= cpuLevel(); l++ {
		ls = append(ls, l.String())
	}
	return ls
}
