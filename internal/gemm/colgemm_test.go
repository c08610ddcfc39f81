//go:build !openblas

package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refColGemm is c = op(a)·op(col) from the definition: each element one
// chain of FMAs over the sum in order, from zero, as every kernel of the
// package computes it. op(col) is col (k × n, tB false) or its transpose
// (col n × k, tB true).
func refColGemm[T Float](tA, tB bool, m, n, k int, a []T, lda int, col []T, ldcol int, c []T, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var acc T
			for l := 0; l < k; l++ {
				var av, bv T
				if tA {
					av = a[l*lda+i]
				} else {
					av = a[i*lda+l]
				}
				if tB {
					bv = col[j*ldcol+l]
				} else {
					bv = col[l*ldcol+j]
				}
				acc = fmaT(av, bv, acc)
			}
			c[i*ldc+j] = acc
		}
	}
}

// TestGemmCols checks GemmCols and GemmColsT against the product of
// op(a) with the column matrix of the definition (refIm2col), bit for bit,
// with every micro-kernel of this machine and both element types, on the
// geometries of the im2col tests (panels split across images, rows and
// the padding), op(a) transposed or not, and rows of c longer than c.
func TestGemmCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 64))
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		testGemmCols[float32](t, ki.name, rng)
		useKernel(old)
	}
	for _, ki := range kernels[float64]() {
		old := useKernel(ki)
		testGemmCols[float64](t, ki.name, rng)
		useKernel(old)
	}
}

func testGemmCols[T Float](t *testing.T, kernel string, rng *rand.Rand) {
	gs := im2colGeoms()
	// Sums over more than one block of each kind, and dcgan64's middle
	// layer at a small batch.
	gs = append(gs,
		Geom{C: 20, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7},
		Geom{C: 3, H: 30, W: 30, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, OH: 30, OW: 30})
	for _, g := range gs {
		for _, n := range []int{1, 3} {
			for _, tA := range []bool{false, true} {
				m := 1 + rng.IntN(13)
				if g.C == 20 {
					m = 40
				}
				name := fmt.Sprintf("%s %T %+v n=%d m=%d tA=%v", kernel, T(0), g, n, m, tA)
				p, img, k := g.Cols(), g.C*g.H*g.W, g.Rows()
				ld := n * p
				x := spread[T](rng, n*img)
				col := make([]T, k*ld)
				for b := 0; b < n; b++ {
					refIm2col(col[b*p:], ld, x[b*img:(b+1)*img], g)
				}

				// GemmCols: c (m × ld) = op(a)·col, op(a) m × k.
				a := spread[T](rng, m*k)
				lda := k
				if tA {
					lda = m
				}
				ldc := ld + 3
				want := spread[T](rng, m*ldc)
				got := append([]T(nil), want...)
				refColGemm(tA, false, m, ld, k, a, lda, col, ld, want, ldc)
				GemmCols(tA, m, a, lda, x, n, g, got, ldc)
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%s: GemmCols c[%d] = %v, want %v", name, i, got[i], want[i])
				}

				// GemmColsT: c (m × k) = op(a)·colᵀ, op(a) m × ld.
				a = spread[T](rng, m*ld)
				lda = ld
				if tA {
					lda = m
				}
				ldc = k + 2
				want = spread[T](rng, m*ldc)
				got = append([]T(nil), want...)
				refColGemm(tA, true, m, k, ld, a, lda, col, ld, want, ldc)
				GemmColsT(tA, m, a, lda, x, n, g, got, ldc)
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%s: GemmColsT c[%d] = %v, want %v", name, i, got[i], want[i])
				}
			}
		}
	}
}

// TestGemmColsSpecial checks that the packing moves values as they are:
// signed zeros, infinities, subnormals and NaN payloads in the images give
// the products, bit for bit, of Im2colBatch and Gemm.
func TestGemmColsSpecial(t *testing.T) {
	g := Geom{C: 2, H: 6, W: 6, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 3, OW: 3}
	const n, m = 2, 7
	rng := rand.New(rand.NewPCG(30, 65))
	p, img, k := g.Cols(), g.C*g.H*g.W, g.Rows()
	ld := n * p
	x := spread[float32](rng, n*img)
	specials := []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00123), math.Float32frombits(0xffa00001), 1e-45}
	for i := range x {
		if rng.IntN(4) == 0 {
			x[i] = specials[rng.IntN(len(specials))]
		}
	}
	col := make([]float32, k*ld)
	Im2colBatch(col, x, n, g)
	a := spread[float32](rng, m*ld)
	want := make([]float32, m*k)
	got := make([]float32, m*k)
	Gemm(false, true, m, k, ld, 1, a, ld, col, ld, 0, want, k)
	GemmColsT(false, m, a, ld, x, n, g, got, k)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("GemmColsT c[%d] = %v (%#x), want %v (%#x)", i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
	a = spread[float32](rng, m*k)
	want = make([]float32, m*ld)
	got = make([]float32, m*ld)
	Gemm(false, false, m, ld, k, 1, a, k, col, ld, 0, want, ld)
	GemmCols(false, m, a, k, x, n, g, got, ld)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("GemmCols c[%d] = %v (%#x), want %v (%#x)", i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestGemmColsParallel checks products large enough to be split across
// goroutines (by columns for GemmCols, by rows for GemmColsT here) against
// Im2colBatch and Gemm.
func TestGemmColsParallel(t *testing.T) {
	g := Geom{C: 64, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7}
	const n, m = 9, 130
	rng := rand.New(rand.NewPCG(30, 66))
	k, ld := g.Rows(), n*g.Cols()
	x := spread[float32](rng, n*g.C*g.H*g.W)
	col := make([]float32, k*ld)
	Im2colBatch(col, x, n, g)
	a := spread[float32](rng, m*k)
	want, got := make([]float32, m*ld), make([]float32, m*ld)
	Gemm(false, false, m, ld, k, 1, a, k, col, ld, 0, want, ld)
	GemmCols(false, m, a, k, x, n, g, got, ld)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("GemmCols c[%d] = %v, want %v", i, got[i], want[i])
	}
	a = spread[float32](rng, ld*k)
	want, got = make([]float32, k*k), make([]float32, k*k)
	Gemm(true, true, k, k, ld, 1, a, k, col, ld, 0, want, k)
	GemmColsT(true, k, a, k, x, n, g, got, k)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("GemmColsT c[%d] = %v, want %v", i, got[i], want[i])
	}
}

// BenchmarkGemmCols times the products of dcgan64's middle layer (64
// channels of 14×14, 4×4 stride 2 pad 1, 128 outputs, batch 64) that read
// its column matrix: packed from the images (fused) against Im2colBatch
// and Gemm (explicit).
func BenchmarkGemmCols(b *testing.B) {
	g := Geom{C: 64, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7}
	const n, m = 64, 128
	rng := rand.New(rand.NewPCG(30, 67))
	k, ld := g.Rows(), n*g.Cols()
	x := spread[float32](rng, n*g.C*g.H*g.W)
	col := make([]float32, k*ld)
	a := spread[float32](rng, m*max(k, ld))
	c := make([]float32, m*max(k, ld))
	for _, nt := range []bool{false, true} {
		name := "NN"
		if nt {
			name = "NT"
		}
		b.Run(name+"/fused", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if nt {
					GemmColsT(false, m, a, ld, x, n, g, c, k)
				} else {
					GemmCols(false, m, a, k, x, n, g, c, ld)
				}
			}
		})
		b.Run(name+"/explicit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Im2colBatch(col, x, n, g)
				if nt {
					Gemm(false, true, m, k, ld, 1, a, ld, col, ld, 0, c, k)
				} else {
					Gemm(false, false, m, ld, k, 1, a, k, col, ld, 0, c, ld)
				}
			}
		})
	}
}

// TestPadImages checks that the padded images have the column matrix of
// the original ones (refIm2col of both), and that unpadded geometries are
// copied.
func TestPadImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 68))
	for _, g := range im2colGeoms() {
		const n = 2
		gp := Padded(g)
		if gp.OH != g.OH || gp.OW != g.OW || gp.PH != 0 || gp.PW != 0 {
			t.Fatalf("%+v: Padded = %+v", g, gp)
		}
		x := spread[float32](rng, n*g.C*g.H*g.W)
		xp := spread[float32](rng, n*gp.C*gp.H*gp.W)
		PadImages(xp, x, n, g)
		for b := range n {
			want := make([]float32, g.Rows()*g.Cols())
			got := make([]float32, len(want))
			refIm2col(want, g.Cols(), x[b*g.C*g.H*g.W:], g)
			refIm2col(got, g.Cols(), xp[b*gp.C*gp.H*gp.W:], gp)
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("%+v image %d: column [%d] = %v, want %v", g, b, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkPadImages pads dcgan64's middle layer's input at batch 64.
func BenchmarkPadImages(b *testing.B) {
	g := Geom{C: 64, H: 14, W: 14, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: 7, OW: 7}
	const n = 64
	gp := Padded(g)
	x := spread[float32](rand.New(rand.NewPCG(30, 70)), n*g.C*g.H*g.W)
	xp := make([]float32, n*gp.C*gp.H*gp.W)
	b.ReportAllocs()
	for b.Loop() {
		PadImages(xp, x, n, g)
	}
	b.ReportMetric(float64(len(x)*4+len(xp)*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}
