package vec

// NormForward normalises one group of a batch or instance norm, element
// by element over y, in float64:
//
//	x̂ ← (x - mean)·inv
//	y ← float32(γ·x̂ + β)
//
// keeping x̂ in xhat for the backward pass.
func NormForward(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64) {
	n := len(y)
	normForward(y, xhat[:n], x[:n], mean, inv, gamma, beta)
}

// NormBackX sets the gradient of a norm's input over one group, element
// by element over dx, in float64:
//
//	dx ← float32(f·(m·dy − s − x̂·sx))
//
// where m is the group's size, s and sx are Σdy and Σdy·x̂ over the group
// and f is γ·inv/m.
func NormBackX(dx, dy []float32, xhat []float64, m, s, sx, f float64) {
	n := len(dx)
	normBackX(dx, dy[:n], xhat[:n], m, s, sx, f)
}
