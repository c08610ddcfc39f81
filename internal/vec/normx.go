package vec

// NormAffine is NormForward without keeping x̂: it sets, element by
// element over y, in float64,
//
//	y ← float32(γ·((x - mean)·inv) + β)
//
// with the very operations of NormForward, so the same bits. The
// backward pass recomputes x̂ from x instead (NormBackXFrom), which moves
// 4 bytes a value where a kept x̂ moves 8, twice.
func NormAffine(y, x []float32, mean, inv, gamma, beta float64) {
	n := len(y)
	normAffine(y, x[:n], mean, inv, gamma, beta)
}

// NormBackXFrom is NormBackX with x̂ recomputed from x as NormForward
// computes it, x̂ = (x - mean)·inv, in float64:
//
//	dx ← float32(f·(m·dy − s − x̂·sx))
func NormBackXFrom(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	n := len(dx)
	normBackXFrom(dx, dy[:n], x[:n], mean, inv, m, s, sx, f)
}

// The portable kernels, as normForwardGo and normBackXGo.

func normAffineGo(y, x []float32, mean, inv, gamma, beta float64) {
	x = x[:len(y)]
	for i, v := range x {
		h := (float64(v) - mean) * inv
		y[i] = float32(float64(gamma*h) + beta)
	}
}

func normBackXFromGo(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	dy, x = dy[:len(dx)], x[:len(dx)]
	for i, v := range dy {
		h := (float64(x[i]) - mean) * inv
		dx[i] = float32(f * (float64(m*float64(v)) - s - float64(h*sx)))
	}
}
