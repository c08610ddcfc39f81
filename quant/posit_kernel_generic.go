//go:build !amd64 || purego

package quant

func roundPositSlice(dst, src []float32, p Posit) { roundPositGo(dst, src, p) }

// positKernels lists the RoundSlice kernels this machine can run, so that
// tests and benchmarks can reach each of them.
func positKernels() []positSliceKernel { return []positSliceKernel{{"go", roundPositGo}} }
