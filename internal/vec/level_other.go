//go:build !(amd64 || arm64) || purego

package vec

// maxLevel is the highest level the package has kernels for.
const maxLevel = levelGeneric

func useLevel(l level) { levelInUse = l }
