package vec

// The portable norm kernels. Each slice has the length of the first. The
// conversions float64(x*y) round each product before its add or
// subtract, as amd64 and the assembly do: other architectures may
// otherwise fuse them.

func normForwardGo(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64) {
	xhat, x = xhat[:len(y)], x[:len(y)]
	for i, v := range x {
		h := (float64(v) - mean) * inv
		xhat[i] = h
		y[i] = float32(float64(gamma*h) + beta)
	}
}

func normBackXGo(dx, dy []float32, xhat []float64, m, s, sx, f float64) {
	dy, xhat = dy[:len(dx)], xhat[:len(dx)]
	for i, v := range dy {
		dx[i] = float32(f * (float64(m*float64(v)) - s - float64(xhat[i]*sx)))
	}
}
