//go:build (!amd64 && !arm64) || purego || openblas

package gemm

// maxLevel is the highest level the package has kernels for: its
// assembly is amd64's, and a package using cgo (openblas) holds none.
const maxLevel = levelGeneric

func useLevel(l level) { levelInUse = l }
