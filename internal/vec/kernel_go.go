package vec

import "math"

// The portable kernels. Each slice has the length of the first. The
// conversions float32(x*y) + z round each product before its add, as
// amd64 and the assembly do: other architectures may otherwise fuse them.

func adamGo(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for j := range p {
		gj := g[j] * inv
		mj := float32(b1*m[j]) + float32(c1*gj)
		vj := float32(b2*v[j]) + float32(c2*gj*gj)
		m[j], v[j] = mj, vj
		p[j] -= lr * mj / (float32(math.Sqrt(float64(vj)))/sc2 + eps)
	}
}

func scaleGo(dst, x []float32, a float32) {
	x = x[:len(dst)]
	for j := range dst {
		dst[j] = x[j] * a
	}
}

func momentsGo(m, v, g []float32, b1, c1, b2, c2 float32) {
	v, g = v[:len(m)], g[:len(m)]
	for j, gj := range g {
		m[j] = float32(b1*m[j]) + float32(c1*gj)
		v[j] = float32(b2*v[j]) + float32(c2*gj*gj)
	}
}

func applyGo(p, m, v []float32, lr, sc2, eps float32) {
	m, v = m[:len(p)], v[:len(p)]
	for j := range p {
		p[j] -= lr * m[j] / (float32(math.Sqrt(float64(v[j])))/sc2 + eps)
	}
}

func leakyGo(dst, x []float32, alpha float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = pick(positive(v), v, alpha*v)
	}
}

func leakyBackGo(dst, dy, x []float32, alpha float32) {
	dy, x = dy[:len(dst)], x[:len(dst)]
	for i, d := range dy {
		dst[i] = pick(positive(x[i]), d, alpha*d)
	}
}

func tanhGo(dst, x []float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = float32(math.Tanh(float64(v)))
	}
}

// positive returns all ones if x > 0 and zero otherwise (NaN included),
// without a branch: x > 0 exactly when its bits are in [1, infBits].
func positive(x float32) uint32 {
	var m uint32
	if math.Float32bits(x)-1 < infBits {
		m = ^uint32(0) // a conditional move
	}
	return m
}

// pick returns a where mask is all ones and b where it is zero.
func pick(mask uint32, a, b float32) float32 {
	return math.Float32frombits(math.Float32bits(a)&mask | math.Float32bits(b)&^mask)
}

// countGo returns the number of values of x whose magnitude's bits are
// at least lo, and at least infBits.
func countGo(x []float32, lo uint32) (ge, inf int) {
	for _, v := range x {
		a := math.Float32bits(v) &^ (1 << 31)
		ge += b2i(a >= lo)
		inf += b2i(a >= infBits)
	}
	return ge, inf
}

func b2i(b bool) int {
	var i int
	if b {
		i = 1 // a conditional move
	}
	return i
}
