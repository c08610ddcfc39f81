//go:build amd64 && !purego

package vec

// The kernels in normx_amd64.s.

//go:noescape
func normAffineAVX2(y, x []float32, mean, inv, gamma, beta float64)

//go:noescape
func normBackXFromAVX2(dx, dy, x []float32, mean, inv, m, s, sx, f float64)

func normAffine(y, x []float32, mean, inv, gamma, beta float64) {
	if hasAVX2 {
		normAffineAVX2(y, x, mean, inv, gamma, beta)
	} else {
		normAffineGo(y, x, mean, inv, gamma, beta)
	}
}

func normBackXFrom(dx, dy, x []float32, mean, inv, m, s, sx, f float64) {
	if hasAVX2 {
		normBackXFromAVX2(dx, dy, x, mean, inv, m, s, sx, f)
	} else {
		normBackXFromGo(dx, dy, x, mean, inv, m, s, sx, f)
	}
}

// normSumDot4AVX2 takes the planes' addresses, dy's then x's.
//
//go:noescape
func normSumDot4AVX2(n int, p *[8]*float32, mu, inv, s, sx *[4]float64)

func normSumDot4(n int, dy, x *[4][]float32, mu, inv, s, sx *[4]float64) {
	if !hasAVX2 {
		normSumDot4Go(n, dy, x, mu, inv, s, sx)
		return
	}
	var p [8]*float32
	for k := range 4 {
		p[k], p[4+k] = &dy[k][0], &x[k][0]
	}
	normSumDot4AVX2(n, &p, mu, inv, s, sx)
}
