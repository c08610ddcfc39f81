//go:build arm64 && !purego

package vec

// The kernels in vec_arm64.s, 4 lanes at a time on n values, n a positive
// multiple of 4; the wrappers below (the "neon" kernels of the tests) run
// the last len%4 values in Go. Each lane does the Go kernel's operations
// in its order, with no fused multiply-add, so the results are the Go
// kernels' bit for bit (TestLevelsAgree). tanh stays in Go on arm64.

//go:noescape
func adamNEON(p, grad, m, v *float32, n int, inv, b1, c1, b2, c2, lr, sc2, eps float32)

//go:noescape
func scaleNEON(dst, x *float32, n int, a float32)

//go:noescape
func momentsNEON(m, v, grad *float32, n int, b1, c1, b2, c2 float32)

//go:noescape
func applyNEON(p, m, v *float32, n int, lr, sc2, eps float32)

//go:noescape
func leakyNEON(dst, x *float32, n int, alpha float32)

//go:noescape
func leakyBackNEON(dst, dy, x *float32, n int, alpha float32)

//go:noescape
func countNEON(x *float32, n int, lo uint32) (ge, inf int)

func adamN(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	n := len(p) &^ 3
	if n > 0 {
		adamNEON(&p[0], &g[0], &m[0], &v[0], n, inv, b1, c1, b2, c2, lr, sc2, eps)
	}
	adamGo(p[n:], g[n:], m[n:], v[n:], inv, b1, c1, b2, c2, lr, sc2, eps)
}

func scaleN(dst, x []float32, a float32) {
	x = x[:len(dst)]
	n := len(dst) &^ 3
	if n > 0 {
		scaleNEON(&dst[0], &x[0], n, a)
	}
	scaleGo(dst[n:], x[n:], a)
}

func momentsN(m, v, g []float32, b1, c1, b2, c2 float32) {
	v, g = v[:len(m)], g[:len(m)]
	n := len(m) &^ 3
	if n > 0 {
		momentsNEON(&m[0], &v[0], &g[0], n, b1, c1, b2, c2)
	}
	momentsGo(m[n:], v[n:], g[n:], b1, c1, b2, c2)
}

func applyN(p, m, v []float32, lr, sc2, eps float32) {
	m, v = m[:len(p)], v[:len(p)]
	n := len(p) &^ 3
	if n > 0 {
		applyNEON(&p[0], &m[0], &v[0], n, lr, sc2, eps)
	}
	applyGo(p[n:], m[n:], v[n:], lr, sc2, eps)
}

func leakyN(dst, x []float32, alpha float32) {
	x = x[:len(dst)]
	n := len(dst) &^ 3
	if n > 0 {
		leakyNEON(&dst[0], &x[0], n, alpha)
	}
	leakyGo(dst[n:], x[n:], alpha)
}

func leakyBackN(dst, dy, x []float32, alpha float32) {
	dy, x = dy[:len(dst)], x[:len(dst)]
	n := len(dst) &^ 3
	if n > 0 {
		leakyBackNEON(&dst[0], &dy[0], &x[0], n, alpha)
	}
	leakyBackGo(dst[n:], dy[n:], x[n:], alpha)
}

func countN(x []float32, lo uint32) (ge, inf int) {
	// Chunks of 1<<30 values keep each lane's 32-bit counts from
	// overflowing.
	for len(x) >= 4 {
		n := min(len(x), 1<<30) &^ 3
		g, i := countNEON(&x[0], n, lo)
		ge, inf, x = ge+g, inf+i, x[n:]
	}
	g, i := countGo(x, lo)
	return ge + g, inf + i
}

func adam(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32) {
	if hasNEON {
		adamN(p, g, m, v, inv, b1, c1, b2, c2, lr, sc2, eps)
	} else {
		adamGo(p, g, m, v, inv, b1, c1, b2, c2, lr, sc2, eps)
	}
}

func scale(dst, x []float32, a float32) {
	if hasNEON {
		scaleN(dst, x, a)
	} else {
		scaleGo(dst, x, a)
	}
}

func moments(m, v, g []float32, b1, c1, b2, c2 float32) {
	if hasNEON {
		momentsN(m, v, g, b1, c1, b2, c2)
	} else {
		momentsGo(m, v, g, b1, c1, b2, c2)
	}
}

func apply(p, m, v []float32, lr, sc2, eps float32) {
	if hasNEON {
		applyN(p, m, v, lr, sc2, eps)
	} else {
		applyGo(p, m, v, lr, sc2, eps)
	}
}

func leaky(dst, x []float32, alpha float32) {
	if hasNEON {
		leakyN(dst, x, alpha)
	} else {
		leakyGo(dst, x, alpha)
	}
}

func leakyBack(dst, dy, x []float32, alpha float32) {
	if hasNEON {
		leakyBackN(dst, dy, x, alpha)
	} else {
		leakyBackGo(dst, dy, x, alpha)
	}
}

func count(x []float32, lo uint32) (ge, inf int) {
	if hasNEON {
		return countN(x, lo)
	}
	return countGo(x, lo)
}

func tanh(dst, x []float32) { tanhGo(dst, x) }
