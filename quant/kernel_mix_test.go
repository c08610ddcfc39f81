package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mixedBlocks returns n values laid out as training tensors are: runs of
// blocks of normal values at one scale (most of them in every kernel's
// fast span), and blocks where a few lanes are ±0, tiny (towards and
// below the format's smallest values), float32 subnormals, ties, huge,
// ±Inf or NaN, so that the vector kernels switch between their fast, wide and
// general paths at every kind of boundary, and keep to a mode across
// blocks.
func mixedBlocks(rng *rand.Rand, n int, scale float64, small []float32) []float32 {
	odd := []float32{0, float32(math.Copysign(0, -1)), math.Float32frombits(1), math.Float32frombits(0x807fffff),
		0x1p-126, -0x1p-127, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e38, -1e20}
	odd = append(odd, small...)
	// Ties of formats of 0 to 4 mantissa bits, in and around the normal
	// ranges.
	var ties []float32
	for e := -12; e <= 12; e++ {
		for _, t := range []float64{1.5, 1.25, 1.125, 1.0625, 1.03125} {
			ties = append(ties, float32(math.Ldexp(t, e)))
		}
	}
	odd = append(odd, ties...)
	xs := make([]float32, n)
	for i := 0; i < n; {
		run := 16 * (1 + rng.IntN(8))
		kind := rng.IntN(5) // 0: clean run; 1: zeros; 2: small values; 3: anything odd; 4: ties
		for j := i; j < min(i+run, n); j++ {
			xs[j] = float32(rng.NormFloat64() * scale)
			if rng.IntN(8) != 0 {
				continue
			}
			switch kind {
			case 1:
				xs[j] = float32(math.Copysign(0, float64(1-2*rng.IntN(2))))
			case 2:
				xs[j] = small[rng.IntN(len(small))] * float32(1-2*rng.IntN(2))
			case 3:
				xs[j] = odd[rng.IntN(len(odd))]
			case 4:
				xs[j] = ties[rng.IntN(len(ties))] * float32(1-2*rng.IntN(2))
			}
		}
		i += run
	}
	return xs
}

// TestLevelsMixedBlocks checks every kernel level against the generic
// one on mixedBlocks, for the formats of posit8+ and fp8-ibm and a few
// others, at the scales of weights, gradients and activations.
func TestLevelsMixedBlocks(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 7))
	for _, name := range []string{"posit(8,1)", "posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,2)", "posit(16,1)", "posit(6,1)",
		"fp8-ibm-fwd", "fp8-ibm-bwd", "fp8-e4m3", "fp8-e5m2", "float(6,9)", "float(4,3)", "float(8,3,bias=135,subnormals=false)",
		"float(4,0,special=ocp)", "float(5,0,bias=14,special=none)", "float(8,23,bias=100)", "bf16", "fp16"} {
		f := MustParse(name)
		// Values around the format's smallest ones: its four smallest
		// magnitudes, the ties between them, and half of the smallest.
		var small []float32
		lo := 1.0 // the smallest positive value, or minpos, or float32's
		for i := 0; i < 200 && f.Round64(lo/2) != 0 && lo/2 >= math.SmallestNonzeroFloat32; i++ {
			lo /= 2
		}
		for v := float32(f.Round64(lo)); len(small) < 16 && v != 0; {
			w := float32(f.Round64(float64(v) * 1.0001))
			if w <= v {
				w = float32(f.Round64(float64(v) * 1.5))
			}
			small = append(small, v, v/2, (v+w)/2, math.Nextafter32((v+w)/2, 0))
			v = w
		}
		small = append(small, 0x1p-20, 0x1p-14, 0x1p-12, 0x1p-8)
		for _, scale := range []float64{0.02, 0.001, 1} {
			for _, n := range []int{16 * 100, 4096 + 7, 33} {
				xs := mixedBlocks(rng, n, scale, small)
				checkLevels(t, name, Nearest, xs, func(dst, src []float32, _ *rand.PCG) { f.RoundSlice(dst, src) })
			}
		}
	}
}
