//go:build !(amd64 || arm64) || purego

package vec

// impls returns the kernels this machine can run, for tests.
func impls() []impl { return []impl{goImpl, dispatchImpl} }
