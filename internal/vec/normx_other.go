//go:build !amd64 || purego

package vec

func normAffine(y, x []float32, mean, inv, gamma, beta float64) {
	normAffineGo(y, x, mean, inv, gamma, beta)
}

func normBackXFrom(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	normBackXFromGo(dx, dy, x, mean, inv, m, s, sx, f)
}
