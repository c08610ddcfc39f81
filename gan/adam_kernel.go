package gan

import "math"

// adamKernel updates one tensor: g ← g·inv; m ← β1·m + (1-β1)·g;
// v ← β2·v + (1-β2)·g²; p ← p - lr·m / (√v/sc2 + ε).
func adamKernel(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32) {
	for j := range p {
		gj := g[j] * inv
		m[j] = b1*m[j] + (1-b1)*gj
		v[j] = b2*v[j] + (1-b2)*gj*gj
		p[j] -= lr * m[j] / (float32(math.Sqrt(float64(v[j])))/sc2 + eps)
	}
}

// The three passes of adamKernel, for rounding between them; each
// computes exactly what adamKernel does.

// scaleKernel sets dst = g·inv.
func scaleKernel(dst, g []float32, inv float32) {
	dst = dst[:len(g)]
	for j, x := range g {
		dst[j] = x * inv
	}
}

// momentsKernel sets m ← β1·m + (1-β1)·g; v ← β2·v + (1-β2)·g².
func momentsKernel(m, v, g []float32, b1, b2 float32) {
	m, v = m[:len(g)], v[:len(g)]
	for j, gj := range g {
		m[j] = b1*m[j] + (1-b1)*gj
		v[j] = b2*v[j] + (1-b2)*gj*gj
	}
}

// applyKernel sets p ← p - lr·m / (√v/sc2 + ε).
func applyKernel(p, m, v []float32, lr, sc2, eps float32) {
	m, v = m[:len(p)], v[:len(p)]
	for j := range p {
		p[j] -= lr * m[j] / (float32(math.Sqrt(float64(v[j])))/sc2 + eps)
	}
}
