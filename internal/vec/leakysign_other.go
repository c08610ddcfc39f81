//go:build !amd64 || purego

package vec

func leakySign(dst []float32, pos []uint8, x []float32, alpha float32) {
	leakySignGo(dst, pos, x, alpha)
}

func leakyBackSign(dst, dy []float32, pos []uint8, alpha float32) {
	leakyBackSignGo(dst, dy, pos, alpha)
}
