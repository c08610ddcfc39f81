package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// refIm2col is Im2col straight from its definition: row (c·KH+i)·KW+j,
// column oy·OW+ox holds src[c][oy·SH-PH+i][ox·SW-PW+j], or zero.
func refIm2col[T Float](dst []T, ld int, src []T, g Geom) {
	for c := 0; c < g.C; c++ {
		for i := 0; i < g.KH; i++ {
			for j := 0; j < g.KW; j++ {
				r := (c*g.KH+i)*g.KW + j
				for oy := 0; oy < g.OH; oy++ {
					for ox := 0; ox < g.OW; ox++ {
						iy, ix := oy*g.SH-g.PH+i, ox*g.SW-g.PW+j
						var v T
						if iy >= 0 && iy < g.H && ix >= 0 && ix < g.W {
							v = src[(c*g.H+iy)*g.W+ix]
						}
						dst[r*ld+oy*g.OW+ox] = v
					}
				}
			}
		}
	}
}

// refCol2im is Col2im as the loops of the definition run: every entry of
// the column matrix, in row-major order, added to its pixel. That order
// is the one the pinned training results depend on.
func refCol2im[T Float](dst []T, src []T, ld int, g Geom) {
	for c := 0; c < g.C; c++ {
		for i := 0; i < g.KH; i++ {
			for j := 0; j < g.KW; j++ {
				r := (c*g.KH+i)*g.KW + j
				for oy := 0; oy < g.OH; oy++ {
					for ox := 0; ox < g.OW; ox++ {
						iy, ix := oy*g.SH-g.PH+i, ox*g.SW-g.PW+j
						if iy >= 0 && iy < g.H && ix >= 0 && ix < g.W {
							dst[(c*g.H+iy)*g.W+ix] += src[r*ld+oy*g.OW+ox]
						}
					}
				}
			}
		}
	}
}

// im2colGeoms returns geometries covering strides 1–3, padding 0–3 and
// kernels 1–7 on each axis separately, odd and even image sizes, padding
// as wide as the kernel and kernels as wide as the padded image, and the
// dcgan64 layers.
func im2colGeoms() []Geom {
	var gs []Geom
	add := func(c, h, w, kh, kw, sh, sw, ph, pw int) {
		if h+2*ph < kh || w+2*pw < kw {
			return
		}
		gs = append(gs, Geom{C: c, H: h, W: w, KH: kh, KW: kw, SH: sh, SW: sw, PH: ph, PW: pw,
			OH: (h+2*ph-kh)/sh + 1, OW: (w+2*pw-kw)/sw + 1})
	}
	for k := 1; k <= 7; k++ {
		for s := 1; s <= 3; s++ {
			for p := 0; p <= 3; p++ {
				add(2, 7, 9, k, k, s, s, p, p)
				add(1, 5, 4, k, 8-k, s, 4-s, p, 3-p)
			}
		}
	}
	for _, sz := range []int{1, 2, 3, 6, 13, 14, 28} {
		add(3, sz, sz, 4, 4, 2, 1, 1, 1)
		add(1, sz, sz+1, 3, 3, 1, 1, 1, 1)
		add(2, sz, sz, 1, 1, 1, 1, 0, 0)
		add(1, sz, sz, 5, 2, 1, 3, 2, 0)
	}
	add(1, 28, 28, 4, 4, 2, 2, 1, 1) // D conv1, G's last layer
	add(8, 14, 14, 4, 4, 2, 2, 1, 1) // D conv2, G's first layer (fewer channels)
	add(2, 33, 40, 7, 7, 2, 2, 3, 3) // ResNet stem
	add(2, 17, 17, 3, 3, 1, 1, 1, 1) // CycleGAN, ESRGAN bodies
	add(5, 7, 7, 7, 7, 1, 1, 0, 0)   // DCGAN's first and last layers
	add(3, 1, 1, 1, 1, 1, 1, 0, 0)
	add(2, 5, 3, 5, 3, 2, 3, 0, 0)
	add(2, 5, 3, 5, 3, 1, 1, 0, 1)
	return gs
}

// spread returns n values of both signs, full mantissas and magnitudes
// from 2⁻⁴ to 2³: sums of three or more of them often round differently
// in another order (TestCol2imOrderMatters).
func spread[T Float](rng *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(math.Ldexp(rng.Float64()-0.5, rng.IntN(7)-3))
	}
	return s
}

func TestIm2colReference(t *testing.T) {
	testIm2colReference[float32](t)
	testIm2colReference[float64](t)
}

func testIm2colReference[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, g := range im2colGeoms() {
		for _, extra := range []int{0, 5} {
			name := fmt.Sprintf("%T %+v ld+%d", T(0), g, extra)
			ld := g.Cols() + extra
			src := spread[T](rng, g.C*g.H*g.W)
			// Gaps between rows and the tail must be left alone: fill
			// both results with the same junk first.
			want := spread[T](rng, g.Rows()*ld)
			got := append([]T(nil), want...)
			refIm2col(want, ld, src, g)
			Im2col(got, ld, src, g)
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("%s: im2col[%d] = %v, want %v", name, i, got[i], want[i])
			}

			col := spread[T](rng, g.Rows()*ld)
			want = spread[T](rng, g.C*g.H*g.W) // Col2im adds to what is there
			got = append([]T(nil), want...)
			refCol2im(want, col, ld, g)
			Col2im(got, col, ld, g)
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("%s: col2im[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
		testBatch[T](t, g, rng)
	}
}

// testBatch checks Im2colBatch and Col2imBatch of three images against the
// reference of each image, its columns at ld = 3·Cols().
func testBatch[T Float](t *testing.T, g Geom, rng *rand.Rand) {
	const n = 3
	p, img := g.Cols(), g.C*g.H*g.W
	ld := n * p
	x := spread[T](rng, n*img)
	want := make([]T, g.Rows()*ld)
	for b := 0; b < n; b++ {
		refIm2col(want[b*p:], ld, x[b*img:(b+1)*img], g)
	}
	got := spread[T](rng, len(want))
	Im2colBatch(got, x, n, g)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("%T %+v: im2col batch[%d] = %v, want %v", T(0), g, i, got[i], want[i])
	}

	col := spread[T](rng, len(want))
	want = make([]T, n*img)
	got = spread[T](rng, n*img) // Col2imBatch overwrites
	for b := 0; b < n; b++ {
		refCol2im(want[b*img:(b+1)*img], col[b*p:], ld, g)
	}
	Col2imBatch(got, col, n, g)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("%T %+v: col2im batch[%d] = %v, want %v", T(0), g, i, got[i], want[i])
	}
}

// The values of TestIm2colReference tell summation orders apart: adding
// each channel's kernel positions in reverse changes many pixels. (Of the
// 784 here, only the 576 inside the border sum more than two terms.)
func TestCol2imOrderMatters(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g, err := ConvGeom(4, 14, 14, 4, 4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	col := spread[float32](rng, g.Rows()*g.Cols())
	fwd := make([]float32, g.C*g.H*g.W)
	rev := make([]float32, len(fwd))
	refCol2im(fwd, col, g.Cols(), g)
	revCol2im(rev, col, g.Cols(), g)
	n := 0
	for i := range fwd {
		if math.Float32bits(fwd[i]) != math.Float32bits(rev[i]) {
			n++
		}
	}
	if n < len(fwd)/5 {
		t.Errorf("the reverse order changes %d of %d pixels; the values do not test the order", n, len(fwd))
	}
}

// revCol2im is refCol2im with the kernel positions of each channel
// visited in reverse.
func revCol2im[T Float](dst []T, src []T, ld int, g Geom) {
	k := g.KH * g.KW
	for c := 0; c < g.C; c++ {
		for q := k - 1; q >= 0; q-- {
			i, j, r := q/g.KW, q%g.KW, c*k+q
			for oy := 0; oy < g.OH; oy++ {
				for ox := 0; ox < g.OW; ox++ {
					iy, ix := oy*g.SH-g.PH+i, ox*g.SW-g.PW+j
					if iy >= 0 && iy < g.H && ix >= 0 && ix < g.W {
						dst[(c*g.H+iy)*g.W+ix] += src[r*ld+oy*g.OW+ox]
					}
				}
			}
		}
	}
}

// firstDiff returns the first index where a and b differ in bits, or -1.
func firstDiff[T Float](a, b []T) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if bitsOf(a[i]) != bitsOf(b[i]) {
			return i
		}
	}
	return -1
}

// The batch split across goroutines, by ForEach as the nn layers used to
// run Im2col and Col2im and inside Im2colBatch and Col2imBatch, gives the
// serial result bit for bit.
func TestIm2colParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 16
	for _, c := range []int{1, 8} {
		g, err := ConvGeom(c, 14, 14, 4, 4, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, img := g.Cols(), g.C*g.H*g.W
		ld := n * p
		x := spread[float32](rng, n*img)
		col := spread[float32](rng, g.Rows()*ld)
		run := func(procs int, batch bool) (c, y []float32) {
			runtime.GOMAXPROCS(procs)
			c = make([]float32, len(col))
			y = make([]float32, n*img)
			if batch {
				Im2colBatch(c, x, n, g)
				Col2imBatch(y, col, n, g)
				return c, y
			}
			ForEach(n, 1<<30, func(i int) { Im2col(c[i*p:], ld, x[i*img:(i+1)*img], g) })
			ForEach(n, 1<<30, func(i int) { Col2im(y[i*img:(i+1)*img], col[i*p:], ld, g) })
			return c, y
		}
		c1, y1 := run(1, false)
		for _, procs := range []int{1, 2, 3, 7} {
			for _, batch := range []bool{false, true} {
				c, y := run(procs, batch)
				if i := firstDiff(c, c1); i >= 0 {
					t.Errorf("C %d, %d goroutines, batch %v: im2col[%d] = %v, serially %v", g.C, procs, batch, i, c[i], c1[i])
				}
				if i := firstDiff(y, y1); i >= 0 {
					t.Errorf("C %d, %d goroutines, batch %v: col2im[%d] = %v, serially %v", g.C, procs, batch, i, y[i], y1[i])
				}
			}
		}
	}
}

// BenchmarkIm2col times Im2col and Col2im at the dcgan64 layer shapes, as
// the nn layers called them image by image (columns of all images side
// by side), and Im2colBatch and Col2imBatch, which they call now: for a
// batch of 64, whose column matrix is far larger than L2, and of 2, whose
// is not. elem/s and col-GB/s count entries of the column matrix.
func BenchmarkIm2col(b *testing.B) {
	for _, tc := range []struct {
		name             string
		n, c, h, k, s, p int
	}{
		{"n64-c1-28", 64, 1, 28, 4, 2, 1},      // D conv1, G's last layer
		{"n64-c64-14", 64, 64, 14, 4, 2, 1},    // D conv2, G's first layer
		{"n64-c128-7-k7", 64, 128, 7, 7, 1, 0}, // D conv3, G deconv1
		{"n64-c64-14-k3s1", 64, 64, 14, 3, 1, 1},
		{"n2-c1-28", 2, 1, 28, 4, 2, 1},
		{"n2-c64-14", 2, 64, 14, 4, 2, 1},
		{"n2-c128-7-k7", 2, 128, 7, 7, 1, 0},
	} {
		n := tc.n
		g, err := ConvGeom(tc.c, tc.h, tc.h, tc.k, tc.k, tc.s, tc.p)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		p, img := g.Cols(), g.C*g.H*g.W
		ld := n * p
		x := spread[float32](rng, n*img)
		col := spread[float32](rng, g.Rows()*ld)
		y := make([]float32, n*img)
		report := func(b *testing.B) {
			elems := float64(g.Rows()*ld) * float64(b.N)
			b.ReportMetric(elems/b.Elapsed().Seconds(), "elem/s")
			b.ReportMetric(4*elems/b.Elapsed().Seconds()/1e9, "col-GB/s")
		}
		b.Run("im2col/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < n; i++ {
					Im2col(col[i*p:], ld, x[i*img:(i+1)*img], g)
				}
			}
			report(b)
		})
		b.Run("im2col-batch/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Im2colBatch(col, x, n, g)
			}
			report(b)
		})
		b.Run("col2im/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(y)
				for i := 0; i < n; i++ {
					Col2im(y[i*img:(i+1)*img], col[i*p:], ld, g)
				}
			}
			report(b)
		})
		b.Run("col2im-batch/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Col2imBatch(y, col, n, g)
			}
			report(b)
		})
	}
}
