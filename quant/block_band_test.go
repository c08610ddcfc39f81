package quant

import (
	"fmt"
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
					levelsAgree(t, b, src, rows, cols, AlongColumn, fmt.Sprintf("%s %d×%d (special %v)", name, rows, cols, special))
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
	if !bandKernels {
		t.Skip("no band or fused row kernels in this build")
	}
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

// rowData returns a rows×cols matrix for the row tests: Gaussians with a
// random scale per block of 32 along the rows, from subnormal to near
// float32's top, some blocks zero, some with a zero, subnormal or
// non-finite value (when special is set).
func rowData(rows, cols int, special bool, rng *rand.Rand) []float32 {
	s := make([]float32, rows*cols)
	for r := range rows {
		row := s[r*cols : (r+1)*cols]
		for j := 0; j < cols; j += 32 {
			blk := row[j:min(j+32, cols)]
			e := rng.IntN(250) - 140
			if rng.IntN(3) != 0 {
				e = rng.IntN(20) - 10 // most blocks ordinary
			}
			zero := rng.IntN(40) == 0
			for i := range blk {
				if !zero {
					blk[i] = float32(rng.NormFloat64() * math.Ldexp(1, e))
				}
			}
			if special && rng.IntN(10) == 0 {
				i := rng.IntN(len(blk))
				switch rng.IntN(4) {
				case 0:
					blk[i] = float32(math.NaN())
				case 1:
					blk[i] = float32(math.Inf(1 - 2*rng.IntN(2)))
				case 2:
					blk[i] = math.Float32frombits(rng.Uint32() & 0x807fffff)
				default:
					blk[i] = 0
				}
			}
		}
	}
	return s
}

// TestRoundRowsFused checks block rounding along rows, whose groups of
// blocks the vector levels round in one pass each (mxRowFast), at every
// level this machine runs against the generic level, bit for bit, on row
// lengths with and without whole groups and tails, in place and not.
func TestRoundRowsFused(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 79))
	for _, name := range []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1", "mxint8", "mxfp6-e2m3(block=16)"} {
		b := MustParseBlock(name)
		for _, cols := range []int{31, 256, 257, 300, 512, 514, 786, 1024, 1026, 2100, 4200} {
			for _, special := range []bool{false, true} {
				const rows = 9
				src := rowData(rows, cols, special, rng)
				levelsAgree(t, b, src, rows, cols, AlongRow, fmt.Sprintf("%s %d×%d (special %v)", name, rows, cols, special))
			}
		}
	}
}

// TestMXRowFast checks that the fused row kernels take ordinary data
// (they must not stop at once everywhere) and stop at a group with a NaN
// block, having rounded the groups before it.
func TestMXRowFast(t *testing.T) {
	if !bandKernels {
		t.Skip("no band or fused row kernels in this build")
	}
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 80))
	k := MustParseBlock("mxfp8-e4m3").kernel(Nearest, nil)
	for _, l := range levels()[1:] {
		useLevel(l)
		const nb = 70
		src := make([]float32, nb*32+5)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20))
		}
		var sc blockScratch
		got := make([]float32, len(src))
		n := mxRowFast(got, src, &k.rp, &sc.amax)
		if n < 64 || n%8 != 0 {
			t.Fatalf("%v: mxRowFast rounded %d of %d blocks", l, n, nb)
		}
		useLevel(LevelGeneric)
		want := make([]float32, len(src))
		k.roundRow(want, src, &sc)
		useLevel(l)
		for i := range n * 32 {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: element %d = %g: got %#x, want %#x", l, i, src[i], math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
		src[40*32+3] = float32(math.NaN())
		clear(got)
		n = mxRowFast(got, src, &k.rp, &sc.amax)
		if n > 40 || n < 32 {
			t.Fatalf("%v: with a NaN in block 40, mxRowFast rounded %d blocks", l, n)
		}
		for i := n * 32; i < len(got); i++ {
			if got[i] != 0 {
				t.Fatalf("%v: mxRowFast wrote element %d past the blocks it reports", l, i)
			}
		}
	}
}

// TestRoundMatrixBoth checks RoundMatrixBoth against RoundMatrix along
// each axis, bit for bit, at every level this machine runs, and that it
// refuses overlapping destinations.
func TestRoundMatrixBoth(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 81))
	for _, l := range levels() {
		useLevel(l)
		for _, name := range []string{"mxfp8-e4m3", "mxfp6-e2m3", "mxint8", "posit(8,1,block=32)", "mxfp8-e5m2(block=16)"} {
			b := MustParseBlock(name)
			for _, sh := range [][2]int{{1, 1}, {3, 40}, {32, 257}, {33, 514}, {70, 1026}, {65, 2100}} {
				rows, cols := sh[0], sh[1]
				for _, special := range []bool{false, true} {
					src := rowData(rows, cols, special, rng)
					wantR, wantC := make([]float32, len(src)), make([]float32, len(src))
					b.RoundMatrix(wantR, src, rows, cols, AlongRow, Nearest, nil)
					b.RoundMatrix(wantC, src, rows, cols, AlongColumn, Nearest, nil)
					gotR, gotC := make([]float32, len(src)), make([]float32, len(src))
					b.RoundMatrixBoth(gotR, gotC, src, rows, cols)
					for i := range src {
						if math.Float32bits(gotR[i]) != math.Float32bits(wantR[i]) || math.Float32bits(gotC[i]) != math.Float32bits(wantC[i]) {
							t.Fatalf("%v %s %d×%d: [%d][%d] = %g: rows %#x (want %#x), columns %#x (want %#x)", l, name, rows, cols,
								i/cols, i%cols, src[i], math.Float32bits(gotR[i]), math.Float32bits(wantR[i]), math.Float32bits(gotC[i]), math.Float32bits(wantC[i]))
						}
					}
				}
			}
		}
	}
	b := MustParseBlock("mxfp8-e4m3")
	buf := make([]float32, 64)
	for _, c := range []struct{ r, c, s []float32 }{{buf[:32], buf[32:], buf[:32]}, {buf[:32], buf[:32], buf[32:]}, {buf[16:48], buf[48:], buf[:32]}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RoundMatrixBoth took overlapping slices")
				}
			}()
			b.RoundMatrixBoth(c.r, c.c, c.s, 1, 32)
		}()
	}
}

// levelsAgree rounds src (rows×cols) along axis at every vector level, in
// place and not, and fails unless each gives the generic level's bits.
// It leaves the generic level in use.
func levelsAgree(t *testing.T, b BlockFormat, src []float32, rows, cols int, axis Axis, label string) {
	t.Helper()
	useLevel(LevelGeneric)
	want := make([]float32, len(src))
	b.RoundMatrix(want, src, rows, cols, axis, Nearest, nil)
	got := make([]float32, len(src))
	for _, l := range levels()[1:] {
		useLevel(l)
		for _, inPlace := range []bool{false, true} {
			s := src
			if inPlace {
				copy(got, src)
				s = got
			}
			b.RoundMatrix(got, s, rows, cols, axis, Nearest, nil)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s at %v, in place %v: [%d][%d] = %g: got %#x, want %#x",
						label, l, inPlace, i/cols, i%cols, src[i], math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}
