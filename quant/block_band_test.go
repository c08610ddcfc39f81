package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bandData returns a rows×cols matrix for the band tests: Gaussians with
// a random scale per column, from subnormal to near float32's top, some
// columns zero, some with a zero, subnormal or non-finite value (when
// special is set).
func bandData(rows, cols int, special bool, rng *rand.Rand) []float32 {
	s := make([]float32, rows*cols)
	for c := range cols {
		e := rng.IntN(250) - 140
		zero := rng.IntN(25) == 0
		for r := range rows {
			v := float32(rng.NormFloat64() * math.Ldexp(1, e))
			if zero {
				v = 0
			}
			s[r*cols+c] = v
		}
		if special && rng.IntN(6) == 0 {
			r := rng.IntN(rows)
			switch rng.IntN(5) {
			case 0:
				s[r*cols+c] = float32(math.NaN())
			case 1:
				s[r*cols+c] = float32(math.Inf(1 - 2*rng.IntN(2)))
			case 2:
				s[r*cols+c] = math.Float32frombits(rng.Uint32() & 0x807fffff)
			default:
				s[r*cols+c] = 0
			}
		}
	}
	return s
}

// TestRoundColumnsBand checks block rounding down columns, whose bands
// the vector levels take in one call (absMaxBand, mxRoundBand), at every
// level this machine runs against the generic level, bit for bit, on
// widths that leave every tail and span more than one chunk, band heights
// below and above a block, in place and not.
func TestRoundColumnsBand(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 77))
	for _, name := range []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e3m2", "mxfp4-e2m1", "mxint8"} {
		b := MustParseBlock(name)
		for _, cols := range []int{1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 102, 514, 1024, 1026, 2100} {
			for _, rows := range []int{1, 5, 32, 33, 70} {
				for _, special := range []bool{false, true} {
					src := bandData(rows, cols, special, rng)
					useLevel(LevelGeneric)
					want := make([]float32, len(src))
					b.RoundMatrix(want, src, rows, cols, AlongColumn, Nearest, nil)
					got := make([]float32, len(src))
					for _, l := range levels()[1:] {
						useLevel(l)
						for _, inPlace := range []bool{false, true} {
							s := src
							if inPlace {
								copy(got, src)
								s = got
							}
							b.RoundMatrix(got, s, rows, cols, AlongColumn, Nearest, nil)
							for i := range got {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("%s %d×%d (special %v) at %v, in place %v: [%d][%d] = %g: got %#x, want %#x",
										name, rows, cols, special, l, inPlace, i/cols, i%cols, src[i],
										math.Float32bits(got[i]), math.Float32bits(want[i]))
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestBandKernels checks the band kernels directly at every vector level:
// the maxima against absMaxColsGo row by row (with am's entries past the
// width left alone), and that mxRoundBand takes a band of ordinary
// columns (it must not fall back everywhere) and rounds it as
// mxRoundColsGo does, and declines one with a NaN column without writing.
func TestBandKernels(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 78))
	k := MustParseBlock("mxfp8-e4m3").kernel(Nearest, nil)
	dr := uint32(23 - k.m)
	for _, l := range levels()[1:] {
		useLevel(l)
		for _, w := range []int{1, 3, 8, 13, 16, 31, 100, 1000, 1024} {
			const rows, stride = 7, 1030
			src := make([]float32, rows*stride)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20))
			}
			var sc blockScratch
			am, want := sc.amax[:w], make([]uint32, blockChunk)
			for i := range sc.amax {
				sc.amax[i] = 0x1234567
				if i >= w {
					want[i] = sc.amax[i]
				}
			}
			clear(am)
			if !absMaxBand(am, src, rows, stride) {
				t.Fatalf("%v: absMaxBand declined", l)
			}
			for r := range rows {
				absMaxColsGo(want[:w], src[r*stride:r*stride+w], false)
			}
			for i, v := range sc.amax {
				if v != want[i] {
					t.Fatalf("%v w=%d: am[%d] = %#x, want %#x", l, w, i, v, want[i])
				}
			}
			if !k.mxConstsAll(&sc.col, am) {
				t.Fatalf("%v w=%d: no fused constants", l, w)
			}
			got, exp := make([]float32, len(src)), make([]float32, len(src))
			for i := range got {
				got[i], exp[i] = -7, -7
			}
			if !mxRoundBand(got, src, w, rows, stride, &sc.col, dr) {
				t.Fatalf("%v w=%d: mxRoundBand declined ordinary columns", l, w)
			}
			for r := range rows {
				mxRoundColsGo(exp[r*stride:r*stride+w], src[r*stride:r*stride+w], &sc.col, dr)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(exp[i]) {
					t.Fatalf("%v w=%d: element [%d][%d] = %g: got %#x, want %#x", l, w, i/stride, i%stride, src[i], math.Float32bits(got[i]), math.Float32bits(exp[i]))
				}
			}
			sc.col.set(w-1, mxNaNBlock)
			for i := range got {
				got[i] = -7
			}
			if mxRoundBand(got, src, w, rows, stride, &sc.col, dr) {
				t.Fatalf("%v w=%d: mxRoundBand took a NaN column", l, w)
			}
			for i, v := range got {
				if v != -7 {
					t.Fatalf("%v w=%d: mxRoundBand declined but wrote element %d", l, w, i)
				}
			}
		}
	}
}
