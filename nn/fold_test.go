package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFoldBatchNorm checks the folded weights and bias against the
// definition in float64: the folded layer's output for input x must be
// BN(layer(x)) with BN(v) = γ·(v − μ)/√(σ² + ε) + β, so its bias is BN(b)
// (input 0) and weight i is BN(b + w_i) − BN(b) (a unit input on i's
// input alone). The output channel of each weight is found by walking
// the weight's axes, for Linear, Conv2d and ConvTranspose2d layouts.
func TestFoldBatchNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := func(n int, scale, shift float64) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(shift + scale*rng.NormFloat64())
		}
		return s
	}
	const in, out, k = 3, 4, 2
	for _, tc := range []struct {
		name  string
		shape []int // weight shape
		chAx  int   // the axis of the output channel
		inner int
	}{
		{"linear", []int{out, in}, 0, in},
		{"conv2d", []int{out, in, k, k}, 0, in * k * k},
		{"convtranspose2d", []int{in, out, k, k}, 1, k * k},
	} {
		for _, bias := range []bool{true, false} {
			n := 1
			for _, d := range tc.shape {
				n *= d
			}
			w := vals(n, 0.3, 0)
			var b []float32
			if bias {
				b = vals(out, 0.5, 0.2)
			}
			gamma, beta, mean := vals(out, 0.5, 1), vals(out, 0.5, 0), vals(out, 1, 0.3)
			variance := vals(out, 0.5, 0)
			for i := range variance {
				variance[i] *= variance[i]
			}
			variance[0] = 0 // ε alone keeps the square root away from zero
			const eps = 1e-3
			bn := func(c int, v float64) float64 {
				return float64(gamma[c])*(v-float64(mean[c]))/math.Sqrt(float64(variance[c])+eps) + float64(beta[c])
			}
			b0 := func(c int) float64 {
				if b == nil {
					return 0
				}
				return float64(b[c])
			}
			gw, gb := make([]float32, n), make([]float32, out)
			FoldBatchNorm(gw, gb, w, b, tc.inner, gamma, beta, mean, variance, eps)
			close := func(got float32, want float64) bool {
				// One float32 rounding, plus float64 noise in want.
				return math.Abs(float64(got)-want) <= 0x1p-24*math.Abs(want)*1.001+1e-12
			}
			for c := range out {
				if want := bn(c, b0(c)); !close(gb[c], want) {
					t.Errorf("%s bias=%v: bias[%d] = %g, want %g", tc.name, bias, c, gb[c], want)
				}
			}
			idx := make([]int, len(tc.shape))
			for i := range n {
				// idx is the multi-index of weight i, last axis fastest.
				r := i
				for a := len(tc.shape) - 1; a >= 0; a-- {
					idx[a] = r % tc.shape[a]
					r /= tc.shape[a]
				}
				c := idx[tc.chAx]
				want := bn(c, b0(c)+float64(w[i])) - bn(c, b0(c))
				if !close(gw[i], want) {
					t.Errorf("%s bias=%v: w%v = %g, want %g", tc.name, bias, idx, gw[i], want)
				}
			}
			// In place gives the same values.
			iw, ib := append([]float32(nil), w...), make([]float32, out)
			var src []float32 // nil without bias
			if b != nil {
				src = ib
				copy(ib, b)
			}
			FoldBatchNorm(iw, ib, iw, src, tc.inner, gamma, beta, mean, variance, eps)
			for i := range iw {
				if iw[i] != gw[i] {
					t.Fatalf("%s bias=%v: in place, w[%d] = %g, want %g", tc.name, bias, i, iw[i], gw[i])
				}
			}
			for i := range ib {
				if ib[i] != gb[i] {
					t.Fatalf("%s bias=%v: in place, b[%d] = %g, want %g", tc.name, bias, i, ib[i], gb[i])
				}
			}
		}
	}
}

func TestFoldBatchNormPanics(t *testing.T) {
	c4 := make([]float32, 4)
	for _, tc := range []struct {
		name        string
		dstW, w, b  []float32
		dstB, gamma []float32
		inner       int
	}{
		{"dst length", make([]float32, 7), make([]float32, 8), nil, c4, c4, 2},
		{"partial channel", make([]float32, 9), make([]float32, 9), nil, c4, c4, 2},
		{"zero inner", make([]float32, 8), make([]float32, 8), nil, c4, c4, 0},
		{"bias length", make([]float32, 8), make([]float32, 8), make([]float32, 3), c4, c4, 2},
		{"bias dst length", make([]float32, 8), make([]float32, 8), nil, make([]float32, 3), c4, 2},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			FoldBatchNorm(tc.dstW, tc.dstB, tc.w, tc.b, tc.inner, tc.gamma, c4, c4, c4, 1e-3)
		}()
	}
}
