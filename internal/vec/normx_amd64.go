//go:build amd64 && !purego

package vec

// The kernels in normx_amd64.s.

//go:noescape
func normAffineAVX2(y, x []float32, mean, inv, gamma, beta float64)

//go:noescape
func normBackXFromAVX2(dx, dy, x []float32, mean, inv, m, s, sx, f float64)

func normAffine(y, x []float32, mean, inv, gamma, beta float64) {
	if hasAVX2 {
		normAffineAVX2(y, x, mean, inv, gamma, beta)
	} else {
		normAffineGo(y, x, mean, inv, gamma, beta)
	}
}

func normBackXFrom(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	if hasAVX2 {
		normBackXFromAVX2(dx, dy, x, mean, inv, m, s, sx, f)
	} else {
		normBackXFromGo(dx, dy, x, mean, inv, m, s, sx, f)
	}
}
