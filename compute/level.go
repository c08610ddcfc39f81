package compute

import (
	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/internal/vec"
	"github.com/positgan/positgan/quant"
)

// KernelLevel is the instruction-set level one group of CPU kernels runs
// at: "avx512", "avx2", "neon" or "generic" (portable Go).
type KernelLevel struct {
	Kernels string // "rounding", "matrix multiply" or "element-wise"
	Level   string
}

// Levels lists the levels the CPU kernels run at, set once at start-up by
// the CPU and capped by the environment variable quant.CPUEnv
// (POSITGAN_CPU=avx2, say, on a machine with AVX-512). Every level gives
// the same bits. The error says that the variable names no level (it is
// then ignored). The matrix multiply's level is that of the built-in
// kernels, which a backend installed with Use or the openblas build tag
// replaces (Name says which runs).
func Levels() ([]KernelLevel, error) {
	q, err := quant.KernelLevel()
	return []KernelLevel{
		{"rounding", q},
		{"matrix multiply", gemm.KernelLevel()},
		{"element-wise", vec.KernelLevel()},
	}, err
}

// AvailableLevels lists the levels this CPU can run, lowest first, whatever
// quant.CPUEnv says.
func AvailableLevels() []string { return quant.KernelLevels() }
