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
