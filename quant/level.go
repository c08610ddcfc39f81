package quant

import (
	"fmt"
	"os"
	"strings"
)

// CPUEnv is the environment variable that caps the instruction-set level
// of the vector kernels, read once when the program starts: "avx512" or
// "avx2" on amd64, "neon" on arm64, or "generic" (the portable Go
// kernels). Unset, the kernels use the best level the CPU has; a level
// above the CPU's gives the CPU's, and so does a level of another
// architecture, so that one setting serves every machine.
// Every level gives the same bits; the cap is there to test and measure
// the lower levels on a machine that has the higher ones.
const CPUEnv = "POSITGAN_CPU"

// A Level is an instruction-set level of the vector kernels. The levels
// of one architecture are ordered, lowest first (generic, avx2, avx512 on
// amd64; generic, neon on arm64); levels of different architectures are
// not comparable, and no CPU runs both. The kernels of internal/gemm and internal/vec run at quant's
// level (CurrentLevel), so that CPUEnv caps every kernel at once.
type Level uint8

const (
	LevelGeneric Level = iota
	LevelAVX2          // AVX2 and FMA
	LevelAVX512        // AVX-512 F, with AVX2 and FMA
	LevelNEON          // arm64's Advanced SIMD (NEON), which every arm64 CPU has
)

var levelNames = [...]string{"generic", "avx2", "avx512", "neon"}

// String names the level as CPUEnv takes it: "generic", "avx2",
// "avx512" or "neon".
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
	return LevelAVX512, fmt.Errorf("quant: %s=%q names no kernel level (want avx512, avx2, neon or generic); ignored", CPUEnv, s)
}

// The level in use, set once by init (level_amd64.go, level_arm64.go,
// level_other.go) from the CPU and CPUEnv; tests switch it with useLevel
// and restore it.
var (
	levelCap, levelErr = parseLevel(os.Getenv(CPUEnv))
	levelInUse         = capLevel(cpuLevel(), levelCap)
)

// arch is the architecture whose CPUs run l ("" for generic, which all
// do).
func (l Level) arch() string {
	switch l {
	case LevelAVX2, LevelAVX512:
		return "amd64"
	case LevelNEON:
		return "arm64"
	}
	return ""
}

// capLevel returns top capped at c: the lower of the two if c is generic
// or of top's architecture (whose levels are numbered in order), else
// top.
func capLevel(top, c Level) Level {
	if c == LevelGeneric || c.arch() == top.arch() {
		return min(top, c)
	}
	return top
}

// LevelsUpTo lists the levels at or below top, lowest first: generic and
// those of top's architecture up to top. The tests of the packages whose
// kernels run at quant's level run each of LevelsUpTo(their top).
func LevelsUpTo(top Level) []Level {
	var ls []Level
	for l := range Level(len(levelNames)) {
		if capLevel(top, l) == l {
			ls = append(ls, l)
		}
	}
	return ls
}

func init() { useLevel(levelInUse) }

// KernelLevel names the instruction-set level the package's vector
// kernels run at ("avx512", "avx2", "neon" or "generic"), and returns an error
// if CPUEnv is set to no level.
func KernelLevel() (string, error) { return levelInUse.String(), levelErr }

// CurrentLevel is the level the vector kernels run at: the CPU's best,
// capped by CPUEnv.
func CurrentLevel() Level { return levelInUse }

// KernelLevels lists the levels this CPU can run, lowest first, whatever
// CPUEnv says.
func KernelLevels() []string {
	var ls []string
	for _, l := range LevelsUpTo(cpuLevel()) {
		ls = append(ls, l.String())
	}
	return ls
}
