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

// A Level is an instruction-set level of the vector kernels, lowest
// first. The kernels of internal/gemm and internal/vec run at quant's
// level (CurrentLevel), so that CPUEnv caps every kernel at once.
type Level uint8

const (
	LevelGeneric Level = iota
	LevelAVX2          // AVX2 and FMA
	LevelAVX512        // AVX-512 F, with AVX2 and FMA
)

var levelNames = [...]string{"generic", "avx2", "avx512"}

// String names the level as CPUEnv takes it: "generic", "avx2" or
// "avx512".
func (l Level) String() string { return levelNames[l] }

// parseLevel reads the value of CPUEnv: the cap it sets, and an error
// if it names no level (then there is no cap).
func parseLevel(s string) (Level, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return LevelAVX512, nil
	}
	for l, name := range levelNames {
		if s == name {
			return Level(l), nil
		}
	}
	return LevelAVX512, fmt.Errorf("quant: %s=%q names no kernel level (want avx512, avx2 or generic); ignored", CPUEnv, s)
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

// CurrentLevel is the level the vector kernels run at: the CPU's best,
// capped by CPUEnv.
func CurrentLevel() Level { return levelInUse }

// KernelLevels lists the levels this CPU can run, lowest first, whatever
// CPUEnv says.
func KernelLevels() []string {
	var ls []string
	for l := LevelGeneric; l <= cpuLevel(); l++ {
		ls = append(ls, l.String())
	}
	return ls
}
