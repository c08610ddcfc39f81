package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/compute"
)

// col2imProduct gives, whatever the number of images per pass, the bits
// of the whole product followed by clear and Col2im image by image, and
// colChunk splits dcgan64's batches into equal passes of at most
// chunkCols columns (with this module's GEMM).
func TestCol2imProductChunks(t *testing.T) {
	if compute.Name() == "openblas" {
		t.Skip("OpenBLAS: no passes (colChunk)")
	}
	r := newRoles(LayerFormats{}, 1)
	rng := rand.New(rand.NewPCG(3, 5))
	for _, tc := range []struct{ c, h, k, s, p, n, inC int }{
		{3, 9, 4, 2, 1, 7, 5},
		{2, 14, 4, 2, 1, 23, 9},
		{4, 5, 5, 1, 0, 6, 3},
	} {
		g, err := compute.ConvGeom(tc.c, tc.h, tc.h, tc.k, tc.k, tc.s, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		a := make([]float32, tc.inC*g.Rows())
		b := make([]float32, tc.inC*tc.n*g.Cols())
		for _, s := range [][]float32{a, b} {
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
		}
		img := g.C * g.H * g.W
		p, ld := g.Cols(), tc.n*g.Cols()
		col := make([]float32, g.Rows()*ld)
		compute.Gemm(true, false, g.Rows(), ld, tc.inC, 1, a, g.Rows(), b, ld, 0, col, ld)
		want := make([]float32, tc.n*img)
		for i := 0; i < tc.n; i++ {
			compute.Col2im(want[i*img:(i+1)*img], col[i*p:], ld, g)
		}
		var buf []float32
		for _, chunk := range []int{1, 2, 3, 5, tc.n} {
			got := make([]float32, tc.n*img)
			col2imProduct(r, r.accOut, got, a, b, nil, tc.inC, tc.n, g, chunk, &buf)
			for i := range want {
				if bitsOf(got[i]) != bitsOf(want[i]) {
					t.Fatalf("%+v, %d images a pass: [%d] = %v, want %v", tc, chunk, i, got[i], want[i])
				}
			}
		}
	}
	for _, tc := range []struct{ n, p, want int }{
		{64, 49, 16}, {64, 196, 5}, {64, 1, 64}, {20, 49, 20}, {21, 49, 11}, {1, 4096, 1}, {0, 49, 1},
	} {
		if got := colChunk[float32](r, tc.n, tc.p); got != tc.want {
			t.Errorf("colChunk(%d images of %d columns) = %d, want %d", tc.n, tc.p, got, tc.want)
		}
	}
	if got := colChunk[float64](r, 64, 49); got != 64 {
		t.Errorf("colChunk[float64](64 images of 49 columns) = %d, want 64", got)
	}
}

// BenchmarkCol2imProduct times dcgan64's middle ConvTranspose2d forward
// (and Conv2d input gradient) product and col2im, batch 64, in one pass
// and in colChunk's.
func BenchmarkCol2imProduct(b *testing.B) {
	const n, k = 64, 128
	r := newRoles(LayerFormats{}, 1)
	g, err := compute.ConvGeom(64, 14, 14, 4, 4, 2, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float32, k*g.Rows())
	x := make([]float32, k*n*g.Cols())
	for _, s := range [][]float32{a, x} {
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
	}
	y := make([]float32, n*g.C*g.H*g.W)
	for _, tc := range []struct {
		name  string
		chunk int
	}{{"one-pass", n}, {"passes", colChunk[float32](r, n, g.Cols())}} {
		b.Run(tc.name, func(b *testing.B) {
			var buf []float32
			b.ReportAllocs()
			for b.Loop() {
				col2imProduct(r, r.accOut, y, a, x, nil, k, n, g, tc.chunk, &buf)
			}
		})
	}
}
