package gan

import "github.com/positgan/positgan/compute"

// adamKernel updates one tensor: g ← g·inv; m ← β1·m + (1-β1)·g;
// v ← β2·v + (1-β2)·g²; p ← p - lr·m / (√v/sc2 + ε). compute.Adam computes
// it with the bits of the scalar loop it replaced.
func adamKernel(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32) {
	compute.Adam(p, g, m, v, inv, b1, b2, lr, sc2, eps)
}

// The three passes of adamKernel, for rounding between them; each
// computes exactly what adamKernel does.

// scaleKernel sets dst = g·inv.
func scaleKernel(dst, g []float32, inv float32) {
	compute.Scale(dst[:len(g)], g, inv)
}

// momentsKernel sets m ← β1·m + (1-β1)·g; v ← β2·v + (1-β2)·g².
func momentsKernel(m, v, g []float32, b1, b2 float32) {
	compute.AdamMoments(m[:len(g)], v, g, b1, b2)
}

// applyKernel sets p ← p - lr·m / (√v/sc2 + ε).
func applyKernel(p, m, v []float32, lr, sc2, eps float32) {
	compute.AdamApply(p, m, v, lr, sc2, eps)
}
