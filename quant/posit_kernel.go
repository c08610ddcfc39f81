package quant

import "math/rand/v2"

// RoundSlice sets dst[i] to src[i] rounded to the nearest posit.
func (p Posit) RoundSlice(dst, src []float32) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	for i, x := range src {
		dst[i] = p.Round(x)
	}
}

// RoundSliceStochastic rounds src to p stochastically (see Format).
func (p Posit) RoundSliceStochastic(dst, src []float32, rng *rand.PCG) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	panic("quant: posit stochastic rounding not implemented yet")
}
