//go:build !amd64 || purego

package vec

func normForward(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64) {
	normForwardGo(y, xhat, x, mean, inv, gamma, beta)
}

func normBackX(dx, dy []float32, xhat []float64, m, s, sx, f float64) {
	normBackXGo(dx, dy, xhat, m, s, sx, f)
}
