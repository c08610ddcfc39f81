package vec

import "github.com/positgan/positgan/quant"

// level is an instruction-set level of the kernels, lowest first. The
// package runs at quant's level (quant.KernelLevel), which the CPU and
// the environment variable quant.CPUEnv set, so that a cap applies to
// every kernel of the program at once.
type level uint8

const (
	levelGeneric level = iota
	levelAVX2
	levelAVX512
)

var levelNames = [...]string{"generic", "avx2", "avx512"}

func (l level) String() string { return levelNames[l] }

// quantLevel is quant's level in use.
func quantLevel() level {
	name, _ := quant.KernelLevel()
	for l, n := range levelNames {
		if n == name {
			return level(l)
		}
	}
	return levelGeneric
}

// levelTop is the level set at start-up; levelInUse is the one in use,
// which tests lower with useLevel and restore.
var (
	levelTop   = min(quantLevel(), maxLevel)
	levelInUse = levelTop
)

func init() { useLevel(levelTop) }

// KernelLevel names the instruction-set level of the package's kernels:
// "avx512", "avx2" or "generic".
func KernelLevel() string { return levelInUse.String() }
