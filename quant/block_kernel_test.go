package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// blockKernelData returns n float32s for the kernel tests: Gaussians of
// random magnitude, with zeros, subnormals, ±Inf and NaN mixed in.
func blockKernelData(n int, rng *rand.Rand) []float32 {
	s := make([]float32, n)
	for i := range s {
		switch rng.IntN(40) {
		case 0:
			s[i] = float32(math.Inf(1 - 2*rng.IntN(2)))
		case 1:
			s[i] = float32(math.NaN())
		case 2:
			s[i] = 0
		case 3:
			s[i] = math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal
		case 4:
			s[i] = math.Float32frombits(rng.Uint32()) // any bits
		default:
			s[i] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(60)-30))
		}
	}
	return s
}

// TestBlockKernelsAgree checks the vectorised block kernels (AVX2 and
// AVX-512 on amd64), at every level this machine runs, against the
// portable Go kernels bit for bit: block and column maxima with and
// without non-finite values, and the fused MX rounding with every element
// format's constants at random scales, NaN blocks included, on lengths
// that leave tails for the Go code.
func TestBlockKernelsAgree(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	for _, l := range levels() {
		useLevel(l)
		t.Run(l.String(), blockKernelsAgree)
	}
}

func blockKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, finite := range []bool{false, true} {
		for _, K := range []int{8, 16, 32, 3, 45} {
			for _, n := range []int{0, 1, 7, 8, 33, 64, 100, 1024} {
				s := blockKernelData(n, rng)
				nb := (n + K - 1) / K
				got, want := make([]uint32, nb), make([]uint32, nb)
				blockAbsMax(got, s, K, finite)
				blockAbsMaxGo(want, s, K, finite)
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("blockAbsMax(K=%d, n=%d, finite=%v)[%d] = %#x, want %#x", K, n, finite, j, got[j], want[j])
					}
				}
				am, amGo := make([]uint32, n), make([]uint32, n)
				for i := range am {
					am[i] = rng.Uint32() & 0x7f8fffff
					amGo[i] = am[i]
				}
				colsAbsMax(am, s, finite)
				absMaxColsGo(amGo, s, finite)
				for i := range am {
					if am[i] != amGo[i] {
						t.Fatalf("colsAbsMax(n=%d, finite=%v)[%d] = %#x, want %#x", n, finite, i, am[i], amGo[i])
					}
				}
			}
		}
	}
	for _, name := range []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1"} {
		b := MustParseBlock(name)
		k := b.kernel(Nearest, nil)
		dr := uint32(23 - k.m)
		for _, K := range []int{8, 32, 40} {
			const nb = 37
			s := blockKernelData(nb*K+5, rng)
			// A block's constants come from its own maximum or a random
			// scale (elements then saturate or underflow), or make it a
			// NaN block.
			cs := make([]mxConsts, nb+1)
			var cc mxCols
			consts := func() mxConsts {
				if rng.IntN(10) == 0 {
					return mxNaNBlock
				}
				for {
					if c, ok := k.mxConstsFor(rng.IntN(260) - 130); ok {
						return c
					}
				}
			}
			for j := range cs {
				cs[j] = consts()
				if j < nb {
					if a := absMaxGo(s[j*K:(j+1)*K], false); a < 0x7f800000 && rng.IntN(2) == 0 {
						if c, ok := k.mxConstsFor(b.expFromBits(a)); ok {
							cs[j] = c
						}
					}
				}
			}
			var rc mxCols
			for j, c := range cs {
				rc.set(j, c)
			}
			got, want := make([]float32, len(s)), make([]float32, len(s))
			if n := mxRoundBlocks(got, s, K, &rc, dr); n != nb {
				t.Fatalf("%s: mxRoundBlocks rounded %d blocks, want %d", name, n, nb)
			}
			mxRoundBlocksGo(want, s, K, nb, &rc, dr)
			for i := range nb * K {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s K=%d: mxRoundBlocks: element %d (%g, block %d): %#x, want %#x", name, K, i, s[i], i/K, math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
			w := min(len(s), blockChunk)
			for c := range w {
				cc.set(c, consts())
			}
			n := mxRoundCols(got[:w], s[:w], &cc, dr)
			mxRoundColsGo(want[:w], s[:w], &cc, dr)
			for c := range n {
				if math.Float32bits(got[c]) != math.Float32bits(want[c]) {
					t.Fatalf("%s: mxRoundCols: column %d (%g): %#x, want %#x", name, c, s[c], math.Float32bits(got[c]), math.Float32bits(want[c]))
				}
			}
		}
	}
	// Block posits' scaling into and out of element scale, with factors
	// that make products underflow and overflow.
	k := MustParseBlock("posit(8,1,block=32)").kernel(Nearest, nil)
	for _, K := range []int{8, 32, 24} {
		const nb = 29
		s := blockKernelData(nb*K+3, rng)
		f := make([]float32, max(nb, len(s)))
		for j := range f {
			f[j] = pow2f(rng.IntN(250) - 125)
		}
		for _, out := range []bool{false, true} {
			got, want := make([]float32, len(s)), make([]float32, len(s))
			n := positScaleBlocks(got, s, K, f, out)
			for j := range n {
				if out {
					copy(want[j*K:], s[j*K:(j+1)*K])
					k.fromElem(want[j*K:(j+1)*K], f[j])
				} else {
					k.toElem(want[j*K:], s[j*K:(j+1)*K], f[j])
				}
			}
			for i := range n * K {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("positScaleBlocks(K=%d, out=%v): element %d (%g · %g): %#x, want %#x", K, out, i, s[i], f[i/K], math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
			n = positScaleCols(got, s, f, out)
			copy(want, s)
			for i, v := range s {
				if out {
					k.fromElem(want[i:i+1], f[i])
				} else {
					k.toElem(want[i:i+1], []float32{v}, f[i])
				}
			}
			for i := range n {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("positScaleCols(out=%v): element %d (%g · %g): %#x, want %#x", out, i, s[i], f[i], math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}

// TestRoundMatrixAllocs checks that rounding a matrix to a block format
// allocates nothing: RoundMatrix runs once per operand and training step.
func TestRoundMatrixAllocs(t *testing.T) {
	src := make([]float32, 48*40)
	for i := range src {
		src[i] = float32(i%37-18) * 0.1
	}
	dst := make([]float32, len(src))
	for _, name := range []string{"mxfp8-e4m3", "mxfp4-e2m1", "mxint8", "posit(8,1,block=32)"} {
		b := MustParseBlock(name)
		for _, axis := range []Axis{AlongRow, AlongColumn} {
			if n := testing.AllocsPerRun(10, func() { b.RoundMatrix(dst, src, 48, 40, axis, Nearest, nil) }); n != 0 {
				t.Errorf("%s %v: %v allocations per call, want 0", name, axis, n)
			}
		}
	}
}
