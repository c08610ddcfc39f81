//go:build arm64 && !purego

package vec

// impls returns the kernels this machine can run, for tests: the Go
// ones, the NEON ones (Go on the last len%4 values, tanh all Go) and the
// ones the package dispatches to.
func impls() []impl {
	is := []impl{goImpl, dispatchImpl}
	if hasNEON {
		is = append(is, impl{"neon", adamN, scaleN, momentsN, applyN, leakyN, leakyBackN, countN, nil})
	}
	return is
}
