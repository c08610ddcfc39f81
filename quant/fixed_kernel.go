package quant

import (
	"math"
	"math/rand/v2"
)

// RoundSlice sets dst[i] = Round(src[i]).
func (x Fixed) RoundSlice(dst, src []float32) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	dst = dst[:len(src)]
	// Scaling by a power of two is exact in float64 for every float32 and
	// every |fl| <= 512.
	up, down := math.Ldexp(1, int(x.fl)), math.Ldexp(1, -int(x.fl))
	lo, hi := x.minInt(), x.maxInt()
	for i, v := range src {
		y := float64(v) * up
		if y != y { // NaN
			y = 0
		}
		// Clamp first (the bounds are integers, so this commutes with
		// rounding), then round to an integer, ties to even, by adding and
		// subtracting 1.5·2^52: |y| <= 2^31 is well inside its binade.
		y = min(max(y, lo), hi)
		k := y + 0x1.8p52 - 0x1.8p52
		dst[i] = float32(float64(k*down) + 0) // +0 turns -0 into +0; float64(…) stops arm64 fusing it
	}
}

// RoundSliceStochastic rounds each src[i] to one of the two values of x
// that bracket it, the upper with probability proportional to its
// proximity (exact to 2^-53), then saturates. NaN gives +0. Each element
// uses one rng.Uint64.
func (x Fixed) RoundSliceStochastic(dst, src []float32, rng *rand.PCG) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	dst = dst[:len(src)]
	up, down := math.Ldexp(1, int(x.fl)), math.Ldexp(1, -int(x.fl))
	lo, hi := x.minInt(), x.maxInt()
	for i, v := range src {
		y := float64(v) * up
		if y != y { // NaN
			y = 0
		}
		// Saturating first gives the same result: y beyond a bound rounds
		// to the bound or past it.
		y = min(max(y, lo), hi)
		k := math.Floor(y)
		if float64(int64(rng.Uint64()>>11))*0x1p-53 < y-k {
			k++ // k < hi here, as y-k > 0
		}
		dst[i] = float32(float64(k*down) + 0)
	}
}
