package nn

import "math"

// FoldBatchNorm folds a batch normalisation in evaluation mode,
// y = γ·(x − μ)/√(σ² + ε) + β for channel c, into the weights w and bias b
// of the layer right before it, writing the folded weights to dstW and the
// folded bias to dstB: with s = γ/√(σ² + ε) formed in float64,
// dstW[i] = w[i]·s and dstB[c] = (b[c] − μ)·s + β, each rounded once to
// float32. A nil b is a layer without bias (b = 0). dstW may be w and
// dstB may be b.
//
// The channels are C = len(gamma). Weight i belongs to channel
// (i/inner) mod C: inner is len(w)/C for Linear (Out, In) and Conv2d
// (Out, In, KH, KW) weights, whose first axis is the output channel, and
// KH·KW for ConvTranspose2d (In, Out, KH, KW) weights, whose second is.
//
// FoldBatchNorm panics if the lengths do not fit together.
func FoldBatchNorm(dstW, dstB, w, b []float32, inner int, gamma, beta, mean, variance []float32, eps float64) {
	c := len(gamma)
	if len(beta) != c || len(mean) != c || len(variance) != c || len(dstB) != c || (b != nil && len(b) != c) {
		panic("nn: FoldBatchNorm: batch-norm and bias lengths differ")
	}
	if len(dstW) != len(w) || inner <= 0 || len(w)%(inner*c) != 0 {
		panic("nn: FoldBatchNorm: weights do not hold whole channels of the given inner size")
	}
	s := make([]float64, c)
	for i := range s {
		s[i] = float64(gamma[i]) / math.Sqrt(float64(variance[i])+eps)
	}
	for i, x := range w {
		dstW[i] = float32(float64(x) * s[(i/inner)%c])
	}
	for i := range dstB {
		if b == nil {
			// β − μ·s is (0 − μ)·s + β but for the sign of a zero.
			dstB[i] = float32(float64(beta[i]) - float64(float64(mean[i])*s[i]))
			continue
		}
		dstB[i] = float32(float64((float64(b[i])-float64(mean[i]))*s[i]) + float64(beta[i]))
	}
}
