//go:build !openblas

package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// convRef is the definition ConvForward must meet bit for bit: each output
// is one chain of FMAs over the taps (c, i, j) in order, from zero, with
// the input read at (oy·SH - PH + i, ox·SW - PW + j) or zero outside the
// image, and the bias added after.
func convRef[T Float](y []T, ldy int, w []T, m int, x []T, g Geom, bias []T) {
	k := g.Rows()
	for o := 0; o < m; o++ {
		for oy := 0; oy < g.OH; oy++ {
			for ox := 0; ox < g.OW; ox++ {
				var acc T
				for c := 0; c < g.C; c++ {
					for i := 0; i < g.KH; i++ {
						for j := 0; j < g.KW; j++ {
							var v T
							iy, ix := oy*g.SH-g.PH+i, ox*g.SW-g.PW+j
							if iy >= 0 && iy < g.H && ix >= 0 && ix < g.W {
								v = x[(c*g.H+iy)*g.W+ix]
							}
							acc = fmaT(w[o*k+(c*g.KH+i)*g.KW+j], v, acc)
						}
					}
				}
				if bias != nil {
					acc += bias[o]
				}
				y[o*ldy+oy*g.OW+ox] = acc
			}
		}
	}
}

// TestConvForward checks the implicit GEMM against its definition with
// every micro-kernel of this machine, for outputs narrower and wider than
// a panel, rows that split panels, strides 1 and 2, paddings wider than
// the kernel's reach, sums of more than one block, and an output row
// stride past the row.
func TestConvForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		for _, tc := range []struct {
			c, h, w, m, k, s, p int
			bias                bool
			pad                 int
		}{
			{3, 9, 7, 4, 3, 1, 1, true, 0},
			{40, 6, 32, 11, 3, 1, 1, true, 2},  // taps read in place: two blocks, last rows through a tile
			{3, 4, 40, 8, 3, 1, 4, true, 0},    // padding past the kernel: whole rows of taps masked off
			{4, 5, 128, 12, 3, 1, 1, true, 0},  // inner panels read in place, last rows through a tile
			{3, 20, 64, 16, 7, 1, 3, false, 0}, // 7×7 taps, masked at three rows and columns of borders
			{64, 16, 40, 9, 3, 1, 1, true, 3},  // k = 576: three blocks of the sum
			{5, 13, 64, 17, 3, 1, 1, false, 0},
			{3, 11, 10, 2, 7, 1, 3, true, 0},
			{4, 12, 12, 3, 4, 2, 1, false, 1},
			{2, 13, 9, 3, 3, 2, 0, true, 0},
			{2, 5, 6, 3, 3, 1, 4, true, 0}, // padding past the kernel
			{3, 33, 65, 8, 1, 1, 0, true, 0},
			{30, 9, 9, 40, 3, 2, 1, true, 0},
			{64, 32, 64, 16, 3, 1, 1, true, 0}, // 38 MFLOP: split across goroutines
		} {
			g, err := ConvGeom(tc.c, tc.h, tc.w, tc.k, tc.k, tc.s, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			x := randSlice[float32](rng, g.C*g.H*g.W)
			w := randSlice[float32](rng, tc.m*g.Rows())
			var bias []float32
			if tc.bias {
				bias = randSlice[float32](rng, tc.m)
			}
			ldy := g.Cols() + tc.pad
			got := randSlice[float32](rng, (tc.m-1)*ldy+g.Cols())
			want := append([]float32(nil), got...)
			ConvForward(got, ldy, w, tc.m, x, g, bias)
			convRef(want, ldy, w, tc.m, x, g, bias)
			name := fmt.Sprintf("%s %+v", ki.name, tc)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s: y[%d] (channel %d, row %d, column %d) = %v, want %v", name, i, i/ldy, i%ldy/g.OW, i%ldy%g.OW, got[i], want[i])
				}
			}
		}
		// A rectangular kernel and padding (nn's RectConv2d).
		g := Geom{C: 3, H: 11, W: 37, KH: 5, KW: 3, SH: 2, SW: 2, PH: 2, PW: 1}
		g.OH, g.OW = (g.H+2*g.PH-g.KH)/g.SH+1, (g.W+2*g.PW-g.KW)/g.SW+1
		x := randSlice[float32](rng, g.C*g.H*g.W)
		w := randSlice[float32](rng, 5*g.Rows())
		bias := randSlice[float32](rng, 5)
		got, want := make([]float32, 5*g.Cols()), make([]float32, 5*g.Cols())
		ConvForward(got, g.Cols(), w, 5, x, g, bias)
		convRef(want, g.Cols(), w, 5, x, g, bias)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s %+v: y[%d] = %v, want %v", ki.name, g, i, got[i], want[i])
			}
		}
		useKernel(old)
	}
}

// TestConvForwardPacked checks that ConvForward gives, at every kernel of
// this machine, the bits of the explicit lowering it replaces: Im2col,
// Gemm with the same kernel on packed panels, then the bias. The kernels
// that read taps in place (tapKernel, maskKernel) must exist for the
// AVX-512 and AVX2 drivers, so that this compares them and not the
// packed path with itself.
func TestConvForwardPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2))
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		d := driverOf[float32]()
		if (ki.name == "avx512" || ki.name == "avx2") && (tapKernel(d) == nil || maskKernel(d) == nil) {
			t.Errorf("%s: no in-place convolution kernel", ki.name)
		}
		for _, tc := range []struct{ c, h, w, m, k, s, p int }{
			{3, 20, 64, 16, 7, 1, 3},
			{64, 16, 40, 9, 3, 1, 1},
			{5, 13, 67, 13, 3, 1, 1},
			{3, 4, 40, 8, 3, 1, 4},
		} {
			g, err := ConvGeom(tc.c, tc.h, tc.w, tc.k, tc.k, tc.s, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			k, p := g.Rows(), g.Cols()
			x := randSlice[float32](rng, g.C*g.H*g.W)
			w := randSlice[float32](rng, tc.m*k)
			bias := randSlice[float32](rng, tc.m)
			col := make([]float32, k*p)
			Im2col(col, p, x, g)
			want := make([]float32, tc.m*p)
			Gemm(false, false, tc.m, p, k, 1, w, k, col, p, 0, want, p)
			for o := range tc.m {
				for j := range p {
					want[o*p+j] += bias[o]
				}
			}
			got := make([]float32, tc.m*p)
			ConvForward(got, p, w, tc.m, x, g, bias)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %+v: y[%d] = %v, packed path %v", ki.name, tc, i, got[i], want[i])
				}
			}
		}
		useKernel(old)
	}
}
