//go:build !openblas

package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// TestGemmColsBlocked checks GemmColsBlocked and GemmColsTBlocked against
// the definition: the column matrix built by refIm2col, rounded whole by
// quant's RoundMatrix (down its columns, along its rows), multiplied by
// refColGemm; bit for bit, but for the sign and payload of a NaN (see
// quant.BlockFormat.RoundPanels). With every float32 micro-kernel of this
// machine (so every panel width), on sums of one and of several of the
// driver's blocks (blocks of 32 straddle no packed block, blocks of 24
// would: those build the matrix), op(a) transposed or not, images with
// zero regions (zero blocks) and, in some runs, with an infinity or a NaN.
func TestGemmColsBlocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 95))
	gs := []Geom{
		{C: 2, H: 7, W: 9, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, OH: 7, OW: 9},
		{C: 1, H: 28, W: 28, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 14, OW: 14}, // 16 taps: one partial block
		{C: 20, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7},  // 320 taps: two blocks of the sum
		{C: 5, H: 11, W: 11, KH: 3, KW: 3, SH: 2, SW: 2, PH: 0, PW: 0, OH: 5, OW: 5},   // 45 taps
		{C: 3, H: 30, W: 30, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, OH: 30, OW: 30}, // 900 positions an image
		{C: 34, H: 8, W: 8, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, OH: 8, OW: 8},    // 306 taps
		{C: 2, H: 5, W: 5, KH: 1, KW: 1, SH: 1, SW: 1, PH: 0, PW: 0, OH: 5, OW: 5},     // 2 taps
	}
	formats := []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp4-e2m1", "mxint8", "posit(8,1,block=32)", "mxfp8-e4m3(block=16)", "mxfp6-e2m3(block=24)"}
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		for _, g := range gs {
			for _, fname := range formats {
				blk := quant.MustParseBlock(fname)
				for _, n := range []int{1, 3} {
					special := rng.IntN(3) == 0
					tA := rng.IntN(2) == 0
					m := 1 + rng.IntN(13)
					name := fmt.Sprintf("%s %s %+v n=%d m=%d tA=%v special=%v", ki.name, fname, g, n, m, tA, special)
					testGemmColsBlocked(t, name, rng, g, blk, n, m, tA, special)
				}
			}
		}
		useKernel(old)
	}
}

func testGemmColsBlocked(t *testing.T, name string, rng *rand.Rand, g Geom, blk quant.BlockFormat, n, m int, tA, special bool) {
	t.Helper()
	p, img, k := g.Cols(), g.C*g.H*g.W, g.Rows()
	ld := n * p
	x := blockImages(rng, n*img, special)
	col := make([]float32, k*ld)
	for b := 0; b < n; b++ {
		refIm2col(col[b*p:], ld, x[b*img:(b+1)*img], g)
	}

	// GemmColsBlocked: c (m × ld) = op(a)·col, col blocked down its columns.
	cb := make([]float32, len(col))
	blk.RoundMatrix(cb, col, k, ld, quant.AlongColumn, quant.Nearest, nil)
	a := spread[float32](rng, m*k)
	lda := k
	if tA {
		lda = m
	}
	ldc := ld + 3
	want := spread[float32](rng, m*ldc)
	got := append([]float32(nil), want...)
	refColGemm(tA, false, m, ld, k, a, lda, cb, ld, want, ldc)
	GemmColsBlocked(tA, m, a, lda, x, n, g, blk, got, ldc)
	if i := firstDiffNaN(got, want); i >= 0 {
		t.Fatalf("%s: GemmColsBlocked c[%d] = %#x, want %#x", name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
	}

	// GemmColsTBlocked: c (m × k) = op(a)·colᵀ, col blocked along its rows.
	blk.RoundMatrix(cb, col, k, ld, quant.AlongRow, quant.Nearest, nil)
	a = spread[float32](rng, m*ld)
	lda = ld
	if tA {
		lda = m
	}
	ldc = k + 2
	want = spread[float32](rng, m*ldc)
	got = append([]float32(nil), want...)
	refColGemm(tA, true, m, k, ld, a, lda, cb, ld, want, ldc)
	GemmColsTBlocked(tA, m, a, lda, x, n, g, blk, got, ldc)
	if i := firstDiffNaN(got, want); i >= 0 {
		t.Fatalf("%s: GemmColsTBlocked c[%d] = %#x, want %#x", name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
	}
}

// blockImages returns n values for the images of the blocked tests: most
// spread, with runs of zeros (whole zero blocks in either direction) and,
// if special, one infinity or NaN.
func blockImages(rng *rand.Rand, n int, special bool) []float32 {
	x := spread[float32](rng, n)
	for i := 0; i < n; {
		ln := 1 + rng.IntN(80)
		if rng.IntN(4) == 0 {
			clear(x[i:min(i+ln, n)])
		}
		i += ln
	}
	if special && n > 0 {
		x[rng.IntN(n)] = []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}[rng.IntN(3)]
	}
	return x
}

// firstDiffNaN is firstDiff for float32, with any two NaNs equal.
func firstDiffNaN(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return i
		}
	}
	return -1
}

// TestGemmColsBlockedParallel checks the blocked products split across
// goroutines (by columns of c, each packing and rounding its own panels)
// against the matrix rounded whole, then Gemm.
func TestGemmColsBlockedParallel(t *testing.T) {
	g := Geom{C: 64, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7}
	const n, m = 9, 130
	rng := rand.New(rand.NewPCG(30, 96))
	blk := quant.MustParseBlock("mxfp8-e4m3")
	k, ld := g.Rows(), n*g.Cols()
	x := blockImages(rng, n*g.C*g.H*g.W, false)
	col := make([]float32, k*ld)
	Im2colBatch(col, x, n, g)
	cb := make([]float32, len(col))
	blk.RoundMatrix(cb, col, k, ld, quant.AlongColumn, quant.Nearest, nil)
	a := spread[float32](rng, m*k)
	want, got := make([]float32, m*ld), make([]float32, m*ld)
	Gemm(false, false, m, ld, k, 1, a, k, cb, ld, 0, want, ld)
	GemmColsBlocked(false, m, a, k, x, n, g, blk, got, ld)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("GemmColsBlocked c[%d] = %v, want %v", i, got[i], want[i])
	}
	blk.RoundMatrix(cb, col, k, ld, quant.AlongRow, quant.Nearest, nil)
	a = spread[float32](rng, ld*k)
	want, got = make([]float32, k*k), make([]float32, k*k)
	Gemm(true, true, k, k, ld, 1, a, k, cb, ld, 0, want, k)
	GemmColsTBlocked(true, k, a, k, x, n, g, blk, got, k)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("GemmColsTBlocked c[%d] = %v, want %v", i, got[i], want[i])
	}
}

// TestGemmBlockedB checks GemmBlockedB against the definition: b copied,
// rounded whole by quant's RoundMatrix with its blocks along the sum
// (down its columns, or along its rows if tB), multiplied by refColGemm;
// bit for bit but for the sign and payload of a NaN. Every float32
// micro-kernel, sums of one and of several of the driver's blocks, widths
// that leave partial panels, leading dimensions longer than the rows,
// zero blocks and non-finite values, a block size the driver's blocks of
// the sum do not hold (the rounded copy) and an empty sum.
func TestGemmBlockedB(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 98))
	formats := []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxint8", "posit(8,1,block=32)", "mxfp6-e2m3(block=24)"}
	shapes := [][3]int{{1, 1, 1}, {7, 33, 40}, {64, 130, 100}, {20, 300, 520}, {13, 17, 256}, {64, 1030, 64}, {5, 9, 0}}
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		for _, fname := range formats {
			blk := quant.MustParseBlock(fname)
			for _, sh := range shapes {
				m, n, k := sh[0], sh[1], sh[2]
				for _, tA := range []bool{false, true} {
					for _, tB := range []bool{false, true} {
						name := fmt.Sprintf("%s %s m=%d n=%d k=%d tA=%v tB=%v", ki.name, fname, m, n, k, tA, tB)
						lda := k + 1
						if tA {
							lda = m + 2
						}
						rb, cb, axis := k, n, quant.AlongColumn
						if tB {
							rb, cb, axis = n, k, quant.AlongRow
						}
						ldb := cb + 3
						a := spread[float32](rng, max(1, lda*max(m, k)))
						b := blockImages(rng, max(1, rb*ldb), rng.IntN(4) == 0)
						rounded := make([]float32, rb*cb)
						for i := range rb {
							copy(rounded[i*cb:(i+1)*cb], b[i*ldb:i*ldb+cb])
						}
						blk.RoundMatrix(rounded, rounded, rb, cb, axis, quant.Nearest, nil)
						ldc := n + 1
						want := spread[float32](rng, m*ldc)
						got := append([]float32(nil), want...)
						refColGemm(tA, tB, m, n, k, a, lda, rounded, max(1, cb), want, ldc)
						GemmBlockedB(tA, tB, m, n, k, a, lda, b, ldb, blk, got, ldc)
						if i := firstDiffNaN(got, want); i >= 0 {
							t.Fatalf("%s: c[%d] = %#x, want %#x", name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
						}
					}
				}
			}
		}
		useKernel(old)
	}
}

// BenchmarkGemmColsBlocked times dcgan64's middle layer's products (as
// BenchmarkGemmCols) with the columns rounded to mxfp8-e4m3: rounded as
// the panels are packed from the images (fused) against Im2colBatch,
// RoundMatrix of the column matrix and Gemm (explicit); and the input
// gradient product of the CGAN's largest layer (64 × 1024 by 1024 × 794
// weights) rounding the weights as it packs them (GemmBlockedB) against
// RoundMatrix into a copy, then Gemm.
func BenchmarkGemmColsBlocked(b *testing.B) {
	g := Geom{C: 64, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7}
	const n, m = 64, 128
	blk := quant.MustParseBlock("mxfp8-e4m3")
	rng := rand.New(rand.NewPCG(30, 69))
	k, ld := g.Rows(), n*g.Cols()
	x := spread[float32](rng, n*g.C*g.H*g.W)
	col := make([]float32, k*ld)
	a := spread[float32](rng, m*max(k, ld))
	c := make([]float32, m*max(k, ld))
	for _, nt := range []bool{false, true} {
		name, axis := "NN", quant.AlongColumn
		if nt {
			name, axis = "NT", quant.AlongRow
		}
		b.Run(name+"/fused", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if nt {
					GemmColsTBlocked(false, m, a, ld, x, n, g, blk, c, k)
				} else {
					GemmColsBlocked(false, m, a, k, x, n, g, blk, c, ld)
				}
			}
		})
		b.Run(name+"/explicit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Im2colBatch(col, x, n, g)
				blk.RoundMatrix(col, col, k, ld, axis, quant.Nearest, nil)
				if nt {
					Gemm(false, true, m, k, ld, 1, a, ld, col, ld, 0, c, k)
				} else {
					Gemm(false, false, m, ld, k, 1, a, k, col, ld, 0, c, ld)
				}
			}
		})
	}
	const bn, out, in = 64, 1024, 794
	dy := spread[float32](rng, bn*out)
	w := spread[float32](rng, out*in)
	wb := make([]float32, out*in)
	dx := make([]float32, bn*in)
	b.Run("weights/fused", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			GemmBlockedB(false, false, bn, in, out, dy, out, w, in, blk, dx, in)
		}
	})
	b.Run("weights/explicit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			blk.RoundMatrix(wb, w, out, in, quant.AlongColumn, quant.Nearest, nil)
			Gemm(false, false, bn, in, out, 1, dy, out, wb, in, 0, dx, in)
		}
	})
}

// TestGemmBlocked checks GemmBlocked with op(A), op(B) or both rounded
// against the definition (each operand copied and rounded whole by
// RoundMatrix with its blocks along the sum, then refColGemm), as
// TestGemmBlockedB does; with every float32 micro-kernel (so panels of
// op(A) of 6, 8 and the generic kernel's rows), tall products whose op(A)
// is packed in several blocks of rows, and products split across
// goroutines.
func TestGemmBlocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 100))
	formats := []string{"", "mxfp8-e4m3", "mxfp8-e5m2", "posit(8,1,block=32)", "mxfp6-e2m3(block=24)"}
	shapes := [][3]int{{1, 1, 1}, {7, 33, 40}, {64, 130, 100}, {20, 300, 520}, {400, 17, 256}, {64, 1030, 64}, {5, 9, 0}, {130, 200, 300}}
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					fa, fb := formats[1+rng.IntN(len(formats)-1)], formats[rng.IntN(len(formats))]
					name := fmt.Sprintf("%s A %q B %q m=%d n=%d k=%d tA=%v tB=%v", ki.name, fa, fb, m, n, k, tA, tB)
					blkA := quant.MustParseBlock(fa)
					var blkB quant.BlockFormat
					if fb != "" {
						blkB = quant.MustParseBlock(fb)
					}
					ra, ca := m, k
					if tA {
						ra, ca = k, m
					}
					rb, cb := k, n
					if tB {
						rb, cb = n, k
					}
					lda, ldb := ca+1, cb+3
					a := blockImages(rng, max(1, ra*lda), rng.IntN(4) == 0)
					b := blockImages(rng, max(1, rb*ldb), rng.IntN(4) == 0)
					ar, lar := roundedCopy(!tA, m, k, a, lda, blkA)
					br, lbr := roundedCopy(tB, n, k, b, ldb, blkB)
					ldc := n + 1
					want := spread[float32](rng, m*ldc)
					got := append([]float32(nil), want...)
					refColGemm(tA, tB, m, n, k, ar, lar, br, lbr, want, ldc)
					GemmBlocked(tA, tB, m, n, k, a, lda, blkA, b, ldb, blkB, got, ldc)
					if i := firstDiffNaN(got, want); i >= 0 {
						t.Fatalf("%s: c[%d] = %#x, want %#x", name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
			}
		}
		useKernel(old)
	}
	// Split across goroutines (by rows, each packing and rounding its
	// own blocks of op(A)), against the same product on one.
	blk := quant.MustParseBlock("mxfp8-e4m3")
	const m, n, k = 600, 200, 700
	a, b := blockImages(rng, m*k, false), blockImages(rng, k*n, false)
	ar, _ := roundedCopy(true, m, k, a, k, blk)
	br, _ := roundedCopy(false, n, k, b, n, blk)
	want, got := make([]float32, m*n), make([]float32, m*n)
	Gemm(false, false, m, n, k, 1, ar, k, br, n, 0, want, n)
	GemmBlocked(false, false, m, n, k, a, k, blk, b, n, blk, got, n)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("parallel: c[%d] = %v, want %v", i, got[i], want[i])
	}
}
