package gemm

import (
	"os"
	"strings"
)

// cpuEnv caps the instruction-set level of the per-op row kernels, as
// for the rounding kernels (issue 30): "avx512", "avx2" or "generic" (the
// portable Go kernel). Unset or unknown, the fastest kernel the CPU runs
// is used. Every level gives the same bits.
const cpuEnv = "POSITGAN_CPU"

// kernelLevel is an instruction-set level of the kernels, lowest first.
type kernelLevel uint8

const (
	levelGeneric kernelLevel = iota
	levelAVX2                // AVX2
	levelAVX512              // AVX-512
)

// perOpKernel is the row kernel PerOpWorkspace runs: the last of
// perOpKernels at or below the level cpuEnv names.
var perOpKernel = pickPerOpKernel(os.Getenv(cpuEnv))

func pickPerOpKernel(env string) perOpRowKernel {
	limit := levelAVX512
	switch strings.ToLower(strings.TrimSpace(env)) {
	case "generic":
		limit = levelGeneric
	case "avx2":
		limit = levelAVX2
	}
	ks := perOpKernels()
	fn := ks[0].fn
	for _, k := range ks {
		if k.level <= limit {
			fn = k.fn
		}
	}
	return fn
}
