//go:build ((!amd64 && !arm64) || purego) && !openblas

package gemm

// kernels lists the micro-kernels of T this machine can run, for tests.
func kernels[T Float]() []kernelInfo[T] { return []kernelInfo[T]{{"go", kernelGo[T], mrGo, nrGo}} }
