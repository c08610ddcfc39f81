//go:build !amd64 || purego

package vec

func normAffine(y, x []float32, mean, inv, gamma, beta float64) {
	normAffineGo(y, x, mean, inv, gamma, beta)
}

func normBackXFrom(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	normBackXFromGo(dx, dy, x, mean, inv, m, s, sx, f)
}

func normSumDot4(n int, dy, x *[4][]float32, mu, inv, s, sx *[4]float64) {
	normSumDot4Go(n, dy, x, mu, inv, s, sx)
}
