//go:build arm64 && !purego

package vec

// maxLevel is the highest level the package has kernels for.
const maxLevel = levelNEON

// hasNEON says whether the 4-lane kernels of vec_arm64.s may run.
var hasNEON bool

// useLevel makes the dispatchers run the kernels of level l and below.
func useLevel(l level) {
	levelInUse = l
	hasNEON = l >= levelNEON
}
