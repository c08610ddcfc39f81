package tanhapprox

import "math"

// pwlKernel is PWL.Apply. The piece is found by counting breakpoints
// (b2u, no branch) and the sign applied with Copysign: inputs of both signs
// and all pieces mix in a tensor.
func pwlKernel(dst, src []float32, p PWL) {
	xs, ys, slopes := p.xs[1:], p.ys, p.slopes
	x0 := p.xs
	sig := p.fn == Sigmoid
	for i, x := range src {
		a := math.Abs(float64(x))
		j := uint32(0)
		for _, b := range xs {
			j += b2u(a >= b)
		}
		v := ys[j] + float64(slopes[j]*(a-x0[j])) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
		if sig {
			// 1-v for x < 0, exactly as At computes it: v-0.5 and
			// 0.5-(v-0.5) are exact for v in [0.5,1].
			v = 0.5 + math.Copysign(v-0.5, float64(x))
		} else {
			v = math.Copysign(v, float64(x))
		}
		if p.out != nil {
			v = p.out.Round64(v)
		}
		dst[i] = float32(v)
	}
}
