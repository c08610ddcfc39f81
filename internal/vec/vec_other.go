//go:build !(amd64 || arm64) || purego

package vec

func adam(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32) {
	adamGo(p, g, m, v, inv, b1, c1, b2, c2, lr, sc2, eps)
}

func scale(dst, x []float32, a float32)                 { scaleGo(dst, x, a) }
func moments(m, v, g []float32, b1, c1, b2, c2 float32) { momentsGo(m, v, g, b1, c1, b2, c2) }
func apply(p, m, v []float32, lr, sc2, eps float32)     { applyGo(p, m, v, lr, sc2, eps) }
func leaky(dst, x []float32, alpha float32)             { leakyGo(dst, x, alpha) }
func leakyBack(dst, dy, x []float32, alpha float32)     { leakyBackGo(dst, dy, x, alpha) }
func count(x []float32, lo uint32) (ge, inf int)        { return countGo(x, lo) }
func tanh(dst, x []float32)                             { tanhGo(dst, x) }
