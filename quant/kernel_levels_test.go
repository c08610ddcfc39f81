package quant

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// exhaustiveHalves returns every float32 whose top 16 bits take each of
// their 2^16 values, with the low 16 bits set to each of a few patterns
// (zero, one, just below, at and above the half, all ones, random), the
// bits between two bfloat16 values where the 8-bit formats have their
// ties; then blocks of 32 that the block kernels treat apart: all +0,
// all ±0, a NaN among normals, an Inf among normals, only subnormals, one
// normal among subnormals.
func exhaustiveHalves(rng *rand.Rand) []float32 {
	lows := []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0}
	xs := make([]float32, 0, len(lows)<<16+6*32)
	for i, lo := range lows {
		for hi := range uint32(1 << 16) {
			if i == len(lows)-1 {
				lo = rng.Uint32() & 0xffff
			}
			xs = append(xs, math.Float32frombits(hi<<16|lo))
		}
	}
	block := func(f func(i int) float32) {
		for i := range 32 {
			xs = append(xs, f(i))
		}
	}
	normal := func() float32 { return float32(rng.NormFloat64()) }
	block(func(int) float32 { return 0 })
	block(func(i int) float32 { return float32(math.Copysign(0, float64(1-2*(i&1)))) })
	block(func(i int) float32 {
		if i == 17 {
			return float32(math.NaN())
		}
		return normal()
	})
	block(func(i int) float32 {
		if i == 3 {
			return float32(math.Inf(-1))
		}
		return normal()
	})
	block(func(int) float32 { return math.Float32frombits(rng.Uint32() & 0x807fffff) })
	block(func(i int) float32 {
		if i == 30 {
			return 0x1p-100
		}
		return math.Float32frombits(rng.Uint32() & 0x807fffff)
	})
	return xs
}

// TestKernelLevelsExhaustive rounds every 16-bit prefix of float32 (with
// several low halves, and the special blocks of exhaustiveHalves) at
// every kernel level this machine runs, to the formats the training
// policies use most (posit8+'s, fp8-ibm's and mxfp8's), to nearest, and
// checks each level bit for bit against the generic Go kernels, which
// the reference tests (posit_ref_test.go, float_ref_test.go,
// block_ref_test.go) check against math/big.
func TestKernelLevelsExhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive")
	}
	top := levelInUse
	defer useLevel(top)
	xs := exhaustiveHalves(rand.New(rand.NewPCG(30, 2)))
	for _, name := range []string{"posit(8,1)", "posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(16,1)",
		"fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd", "fp8-ibm-bwd", "float(6,9)"} {
		f := MustParse(name)
		checkLevels(t, name, Nearest, xs, func(dst, src []float32, _ *rand.PCG) { f.RoundSlice(dst, src) })
	}
	for _, name := range []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp4-e2m1"} {
		b := MustParseBlock(name)
		checkLevels(t, name, Nearest, xs, func(dst, src []float32, _ *rand.PCG) {
			b.RoundMatrix(dst, src, len(src)/64, 64, AlongRow, Nearest, nil)
		})
		checkLevels(t, name+" cols", Nearest, xs, func(dst, src []float32, _ *rand.PCG) {
			b.RoundMatrix(dst, src, 64, len(src)/64, AlongColumn, Nearest, nil)
		})
	}
}

// TestFloatKernelLayout checks the offsets float_kernel_amd64.s uses.
func TestFloatKernelLayout(t *testing.T) {
	var k floatKernel
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"abs", unsafe.Offsetof(k.abs), 0}, {"halfm1", unsafe.Offsetof(k.halfm1), 32},
		{"lsbOne", unsafe.Offsetof(k.lsbOne), 64}, {"keep", unsafe.Offsetof(k.keep), 96},
		{"minNorm", unsafe.Offsetof(k.minNorm), 128}, {"magic", unsafe.Offsetof(k.magic), 160},
		{"ftz", unsafe.Offsetof(k.ftz), 192}, {"maxBits", unsafe.Offsetof(k.maxBits), 224},
		{"ovf", unsafe.Offsetof(k.ovf), 256}, {"nanKeep", unsafe.Offsetof(k.nanKeep), 288},
		{"fnuz", unsafe.Offsetof(k.fnuz), 320}, {"inf", unsafe.Offsetof(k.inf), 352},
		{"lsbXor", unsafe.Offsetof(k.lsbXor), 384}, {"shift", unsafe.Offsetof(k.shift), 416},
		{"fastLo2", unsafe.Offsetof(k.fastLo2), 424}, {"fastSpan2", unsafe.Offsetof(k.fastSpan2), 428},
		{"wideLo2", unsafe.Offsetof(k.wideLo2), 436}, {"wideSpan2", unsafe.Offsetof(k.wideSpan2), 468},
		{"addLo2", unsafe.Offsetof(k.addLo2), 500}, {"addSpan2", unsafe.Offsetof(k.addSpan2), 504},
		{"addEmin", unsafe.Offsetof(k.addEmin), 508}, {"addBias", unsafe.Offsetof(k.addBias), 512},
	} {
		if c.got != c.want {
			t.Errorf("floatKernel.%s at %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestMXConstsOf checks the written-out mxConstsOf against
// mxConstsFor(expFromBits) for every exponent byte of the block maximum
// (with a few mantissas), zero, subnormals, Inf and NaN.
func TestMXConstsOf(t *testing.T) {
	for _, name := range []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1"} {
		b := MustParseBlock(name)
		k := b.kernel(Nearest, nil)
		for e := range uint32(256) {
			for _, m := range []uint32{0, 1, 0x400000, 0x7fffff} {
				a := e<<23 | m
				got, gotOK := k.mxConstsOf(a)
				want, wantOK := mxNaNBlock, true
				if a < 0x7f800000 {
					want, wantOK = k.mxConstsFor(b.expFromBits(a))
				}
				if gotOK != wantOK || gotOK && got != want {
					t.Fatalf("%s: mxConstsOf(%#x) = %+v, %v; want %+v, %v", name, a, got, gotOK, want, wantOK)
				}
			}
		}
	}
}

// TestMXConstsVec checks the vector kernels of the MX block constants,
// at every level this machine runs, against mxConstsOf: on every
// exponent byte of the block maximum (in runs where all are valid, and
// runs broken by a zero, subnormal or out-of-range maximum, where the
// kernels must stop before it).
func TestMXConstsVec(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 3))
	for _, l := range levels() {
		useLevel(l)
		for _, name := range []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1"} {
			b := MustParseBlock(name)
			k := b.kernel(Nearest, nil)
			for e := range uint32(256) {
				for _, brk := range []int{-1, 0, 5, 13, 40} {
					am := make([]uint32, 61)
					for i := range am {
						am[i] = min(e+uint32(rng.IntN(3)), 255)<<23 | rng.Uint32()&0x7fffff
					}
					if brk >= 0 {
						am[brk] = rng.Uint32() & 0x7fffff // zero or subnormal
					}
					var cc mxCols
					n := mxConstsVec(&cc, am, &k.mp)
					for c := range am {
						want, ok := k.mxConstsOf(am[c])
						if c < n && (!ok || cc.get(c) != want) {
							t.Fatalf("%v %s: mxConstsVec(%#x) = %+v, want %+v, %v", l, name, am[c], cc.get(c), want, ok)
						}
						if width := map[Level]int{LevelAVX2: 8, LevelAVX512: 16}[l]; width > 0 && c >= n && c < len(am)/width*width && brk < 0 && e >= k.mp.eLo && e+2 <= k.mp.eHi {
							t.Fatalf("%v %s: mxConstsVec stopped at %d of a valid run", l, name, n)
						}
					}
				}
			}
		}
	}
}
