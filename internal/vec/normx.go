package vec

// NormAffine normalises one group of a batch or instance norm without
// keeping x̂: it sets, element by element over y, in float64,
//
//	x̂ ← (x - mean)·inv
//	y ← float32(γ·x̂ + β)
//
// The backward pass recomputes x̂ from x with the same operations
// (NormBackXFrom), which moves 4 bytes a value where a kept float64 x̂
// would move 8, twice.
func NormAffine(y, x []float32, mean, inv, gamma, beta float64) {
	n := len(y)
	normAffine(y, x[:n], mean, inv, gamma, beta)
}

// NormBackXFrom sets the gradient of a norm's input over one group,
// element by element over dx, with x̂ recomputed from x as NormAffine
// computes it, x̂ = (x - mean)·inv, in float64:
//
//	dx ← float32(f·(m·dy − s − x̂·sx))
//
// where m is the group's size, s and sx are Σdy and Σdy·x̂ over the group
// and f is γ·inv/m.
func NormBackXFrom(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	n := len(dx)
	normBackXFrom(dx, dy[:n], x[:n], mean, inv, m, s, sx, f)
}

// The portable kernels. Each slice has the length of the first. The
// conversions float64(x*y) round each product before its add or
// subtract, as amd64 and the assembly do: other architectures may
// otherwise fuse them.

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

// NormSumDot4 adds Σdy and Σdy·x̂ over the planes of four channels to s
// and sx, lane k for channel k, element by element in order, in float64:
//
//	s[k]  ← s[k] + dy[k][i]
//	sx[k] ← sx[k] + dy[k][i]·((x[k][i] - mu[k])·inv[k])
//
// Each lane is one chain of adds, as a loop over one channel would do it:
// the four run side by side. Every plane has len(dy[0]) values.
func NormSumDot4(dy, x *[4][]float32, mu, inv, s, sx *[4]float64) {
	n := len(dy[0])
	if n == 0 {
		return
	}
	for k := range 4 {
		_, _ = dy[k][n-1], x[k][n-1]
	}
	normSumDot4(n, dy, x, mu, inv, s, sx)
}

func normSumDot4Go(n int, dy, x *[4][]float32, mu, inv, s, sx *[4]float64) {
	for i := range n {
		for k := range 4 {
			v := float64(dy[k][i])
			h := (float64(x[k][i]) - mu[k]) * inv[k]
			s[k] += v
			sx[k] += float64(v * h)
		}
	}
}
