package vec

import "github.com/positgan/positgan/quant"

// level is quant's instruction-set level of the kernels: the package
// runs at quant's level (quant.CurrentLevel), which the CPU and the
// environment variable quant.CPUEnv set, so that a cap applies to every
// kernel of the program at once.
type level = quant.Level

const (
	levelGeneric = quant.LevelGeneric
	levelAVX2    = quant.LevelAVX2
	levelAVX512  = quant.LevelAVX512
	levelNEON    = quant.LevelNEON
)

// levelTop is the level set at start-up; levelInUse is the one in use,
// which tests lower with useLevel and restore.
var (
	levelTop   = min(quant.CurrentLevel(), maxLevel)
	levelInUse = levelTop
)

func init() { useLevel(levelTop) }

// KernelLevel names the instruction-set level of the package's kernels:
// "avx512", "avx2", "neon" or "generic".
func KernelLevel() string { return levelInUse.String() }
