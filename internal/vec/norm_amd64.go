//go:build amd64 && !purego

package vec

// The norm kernels in norm_amd64.s. They stay AVX2 at the AVX-512 level:
// with x̂ in float64 they move 16 bytes a value, and are bound by memory
// on tensors of training size.

//go:noescape
func normForwardAVX2(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64)

//go:noescape
func normBackXAVX2(dx, dy []float32, xhat []float64, m, s, sx, f float64)

func normForward(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64) {
	if hasAVX2 {
		normForwardAVX2(y, xhat, x, mean, inv, gamma, beta)
	} else {
		normForwardGo(y, xhat, x, mean, inv, gamma, beta)
	}
}

func normBackX(dx, dy []float32, xhat []float64, m, s, sx, f float64) {
	if hasAVX2 {
		normBackXAVX2(dx, dy, xhat, m, s, sx, f)
	} else {
		normBackXGo(dx, dy, xhat, m, s, sx, f)
	}
}
