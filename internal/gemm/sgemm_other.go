//go:build (!amd64 || purego) && !openblas

package gemm

// kernels lists the micro-kernels this machine can run, for tests.
func kernels() []kernelInfo { return []kernelInfo{{"go", kernelGo, mrGo, nrGo}} }

func transpose8(dst *float32, ldd int, src *float32, lds int, n int) { panic("gemm: no transpose8") }
