//go:build amd64 && !purego

package vec

// impls returns the kernels this machine can run, for tests: the Go
// ones, each instruction set's (nil where it has none of its own), and
// the ones the package dispatches to.
func impls() []impl {
	is := []impl{goImpl, dispatchImpl}
	if hasAVX2 {
		im := impl{"avx2", adamAVX2, scaleAVX2, momentsAVX2, applyAVX2, leakyAVX2, leakyBackAVX2, countAVX2, nil}
		if hasFMA {
			im.tanh = tanhAVX2
		}
		is = append(is, im)
	}
	if hasAVX512 {
		im := impl{name: "avx512", adam: adamAVX512, apply: applyAVX512}
		if hasFMA {
			im.tanh = tanhAVX512
		}
		is = append(is, im)
	}
	return is
}
