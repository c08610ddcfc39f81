//go:build !amd64 || purego || openblas

package gemm

// perOpKernels lists the row kernels this machine can run, the fastest
// last: here only the portable one.
func perOpKernels() []perOpKernelInfo {
	return []perOpKernelInfo{{"go", levelGeneric, perOpRowGo}}
}
