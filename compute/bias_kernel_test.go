package compute

import (
	"math"
	"math/rand/v2"
	"testing"
)

// biasValues returns n values: ordinary ones of many magnitudes (so that
// the order of the adds shows in the sums), and with special, sometimes
// zeros of both signs, subnormals, the largest finite values, infinities
// and NaNs.
func biasValues(rng *rand.Rand, n int, special bool) []float32 {
	sp := []float32{0, float32(math.Copysign(0, -1)), math.Float32frombits(1), math.Float32frombits(0x807fffff),
		math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(60)-30)))
		if special && rng.IntN(8) == 0 {
			s[i] = sp[rng.IntN(len(sp))]
		}
	}
	return s
}

// TestBiasKernels checks addBias and sumBias against the definitions,
// bit for bit: every value plus its channel's bias, and each channel's
// sum one chain of float64 adds over b, then p. Channel counts straddle
// sumBias's block; inner 1 is a linear layer's.
func TestBiasKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 7))
	for _, special := range []bool{false, true} {
		for _, n := range []int{1, 2, 7, 64} {
			for _, c := range []int{1, 3, biasBlock - 1, biasBlock, biasBlock + 1, 2*biasBlock + 5} {
				for _, inner := range []int{1, 2, 9} {
					src, bias := biasValues(rng, n*c*inner, special), biasValues(rng, c, special)
					got := append([]float32(nil), src...)
					addBias(got, bias, n, inner)
					for i, v := range src {
						want := v + bias[i/inner%c]
						if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
							t.Fatalf("addBias n %d c %d inner %d: [%d] = %g, want %g", n, c, inner, i, got[i], want)
						}
					}
					sums := make([]float32, c+1)
					sums[c] = 12345 // past the end: untouched
					sumBias(sums[:c], src, n, inner)
					for ch := range c {
						var s float64
						for b := range n {
							for p := range inner {
								s += float64(src[(b*c+ch)*inner+p])
							}
						}
						if w := float32(s); math.Float32bits(sums[ch]) != math.Float32bits(w) && !(w != w && sums[ch] != sums[ch]) {
							t.Fatalf("sumBias n %d c %d inner %d: [%d] = %g, want %g", n, c, inner, ch, sums[ch], w)
						}
					}
					if sums[c] != 12345 {
						t.Fatalf("sumBias n %d c %d inner %d wrote past the end", n, c, inner)
					}
				}
			}
		}
	}
}
