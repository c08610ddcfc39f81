package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestParseLevel(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Level
		bad  bool
	}{
		{"", LevelAVX512, false},
		{"avx512", LevelAVX512, false},
		{" AVX2 ", LevelAVX2, false},
		{"generic", LevelGeneric, false},
		{"Neon", LevelNEON, false},
		{"sse", LevelAVX512, true},
		{"avx", LevelAVX512, true},
	} {
		l, err := parseLevel(c.s)
		if l != c.want || (err != nil) != c.bad {
			t.Errorf("parseLevel(%q) = %v, %v; want %v, error %v", c.s, l, err, c.want, c.bad)
		}
	}
}

// TestCapLevel checks the cap of CPUEnv on each architecture's levels: a
// cap of the same architecture or generic lowers the level, one of
// another architecture leaves it.
func TestCapLevel(t *testing.T) {
	for _, c := range []struct{ top, cap, want Level }{
		{LevelAVX512, LevelAVX512, LevelAVX512},
		{LevelAVX512, LevelAVX2, LevelAVX2},
		{LevelAVX512, LevelGeneric, LevelGeneric},
		{LevelAVX512, LevelNEON, LevelAVX512},
		{LevelAVX2, LevelAVX512, LevelAVX2},
		{LevelNEON, LevelNEON, LevelNEON},
		{LevelNEON, LevelGeneric, LevelGeneric},
		{LevelNEON, LevelAVX2, LevelNEON},
		{LevelNEON, LevelAVX512, LevelNEON}, // parseLevel's "no cap"
		{LevelGeneric, LevelAVX512, LevelGeneric},
		{LevelGeneric, LevelNEON, LevelGeneric},
	} {
		if got := capLevel(c.top, c.cap); got != c.want {
			t.Errorf("capLevel(%v, %v) = %v, want %v", c.top, c.cap, got, c.want)
		}
	}
	for top, want := range map[Level]string{
		LevelGeneric: "[generic]",
		LevelAVX2:    "[generic avx2]",
		LevelAVX512:  "[generic avx2 avx512]",
		LevelNEON:    "[generic neon]",
	} {
		if got := fmt.Sprint(LevelsUpTo(top)); got != want {
			t.Errorf("LevelsUpTo(%v) = %s, want %s", top, got, want)
		}
	}
}

// levelProbes are inputs of every kind the kernels treat apart: ties of
// the 8-bit formats, both sides of their overflow and underflow limits,
// float32 subnormals, zeros, infinities and NaNs, and random bit
// patterns and normals; n of them.
func levelProbes(rng *rand.Rand, n int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(1), math.Float32frombits(0x807fffff),
		math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, 0x1p-126, 0x1p-127,
		448, 464, 480, 57344, 61440, 0x1p24, 0x1p-24, 0x1p-25, 4096, 0x1p-12, 0x1p-13, 3e38,
		1.0625, 1.125, 1.1875, 0.5625, 3.5, 0x1p-9, 0x1p-10, 0x1p-7 * 1.5, 65504, 65520}
	xs := make([]float32, n)
	for i := range xs {
		switch rng.IntN(5) {
		case 0:
			xs[i] = special[rng.IntN(len(special))] * float32(1-2*rng.IntN(2))
		case 1:
			xs[i] = math.Float32frombits(rng.Uint32())
		case 2:
			// Near a power of two, where ties and binade edges lie.
			xs[i] = float32(math.Ldexp(1+float64(rng.IntN(64))/64, rng.IntN(80)-40)) * float32(1-2*rng.IntN(2))
		default:
			xs[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10)))
		}
	}
	return xs
}

// levels lists the levels this machine runs under CPUEnv, lowest first.
func levels() []Level { return LevelsUpTo(capLevel(cpuLevel(), levelCap)) }

// TestLevelsAgree runs the exported rounding functions at every kernel
// level this machine runs (up to CPUEnv's cap) and checks each against
// the generic level, bit for bit, for element and block formats, nearest
// and stochastic, on probes of every kind, in place and not.
func TestLevelsAgree(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 1))
	formats := []string{"posit(8,0)", "posit(8,1)", "posit(6,1)", "posit(8,2,scale=3)", "posit(16,1)", "posit(32,2)",
		"fp8-e4m3", "fp8-e5m2", "fp8-ibm-bwd", "float(4,3)", "float(8,3,bias=135,subnormals=false)", "float(5,2,bias=140)", "fixed(8,4)"}
	blocks := []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp4-e2m1", "posit(8,1,block=32)", "posit(6,1,block=16)"}
	for _, n := range []int{7, 8, 17, 64, 1000, 4099} {
		xs := levelProbes(rng, n)
		for _, r := range []Rounding{Nearest, Stochastic} {
			for _, name := range formats {
				f, err := Parse(name)
				if err != nil {
					t.Fatal(err)
				}
				checkLevels(t, name, r, xs, func(dst, src []float32, rng *rand.PCG) { RoundTo(dst, src, f, r, rng) })
			}
			for _, name := range blocks {
				b, err := ParseBlock(name)
				if err != nil {
					t.Fatal(err)
				}
				checkLevels(t, name, r, xs, func(dst, src []float32, rng *rand.PCG) { RoundBlocksTo(dst, src, b, r, rng) })
				if n%8 == 0 {
					// Columns, where the kernels run across blocks.
					checkLevels(t, name+" cols", r, xs, func(dst, src []float32, rng *rand.PCG) {
						b.RoundMatrix(dst, src, 8, n/8, AlongColumn, r, rng)
					})
				}
			}
		}
	}
}

func checkLevels(t *testing.T, name string, r Rounding, xs []float32, round func(dst, src []float32, rng *rand.PCG)) {
	t.Helper()
	useLevel(LevelGeneric)
	want := make([]float32, len(xs))
	round(want, xs, rand.NewPCG(5, 6))
	got := make([]float32, len(xs))
	for _, l := range levels()[1:] {
		useLevel(l)
		for _, inPlace := range []bool{false, true} {
			src := xs
			if inPlace {
				copy(got, xs)
				src = got
			}
			round(got, src, rand.NewPCG(5, 6))
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %v at %v (in place %v), n=%d: x = %g (%#x): got %g, want %g (generic)",
						name, r, l, inPlace, len(xs), xs[i], math.Float32bits(xs[i]), got[i], want[i])
				}
			}
		}
	}
}
