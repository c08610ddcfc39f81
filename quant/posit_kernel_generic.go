//go:build (!amd64 && !arm64) || purego

package quant

import "math/rand/v2"

func roundPositSlice(dst, src []float32, p Posit) { roundPositGo(dst, src, p) }

// positKernels lists the RoundSlice kernels this machine can run, so that
// tests and benchmarks can reach each of them.
func positKernels() []positSliceKernel { return []positSliceKernel{{"go", roundPositGo}} }

func roundPositStochSlice(dst, src []float32, p Posit, rng *rand.PCG) {
	roundPositStochGo(dst, src, p, rng)
}

// positStochKernels lists the RoundSliceStochastic kernels this machine
// can run.
func positStochKernels() []positStochKernel {
	return []positStochKernel{{"go", roundPositStochGo}}
}
