package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bitsOf returns the bits of a float32 or float64.
func bitsOf[T Float](x T) uint64 {
	if v, ok := any(x).(float32); ok {
		return uint64(math.Float32bits(v))
	}
	return math.Float64bits(float64(x))
}

// naiveGemm is C = alpha·op(A)·op(B) + beta·C from the definition, in float64.
func naiveGemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				var av, bv float64
				if tA {
					av = a[l*lda+i]
				} else {
					av = a[i*lda+l]
				}
				if tB {
					bv = b[j*ldb+l]
				} else {
					bv = b[l*ldb+j]
				}
				s += av * bv
			}
			c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
		}
	}
}

func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		m, n, k  int
		tA, tB   bool
		alpha    float64
		beta     float64
		extraLDC int
	}{
		{1, 1, 1, false, false, 1, 0, 0},
		{3, 5, 7, false, false, 1, 0, 2},
		{3, 5, 7, true, false, 2, 1, 0},
		{3, 5, 7, false, true, 1, 0.5, 1},
		{17, 9, 33, true, true, -1, 0, 0},
		{4, 6, 0, false, false, 1, 0, 0},
	} {
		lda := tc.k
		if tc.tA {
			lda = tc.m
		}
		ldb := tc.n
		if tc.tB {
			ldb = tc.k
		}
		ldc := tc.n + tc.extraLDC
		a := make([]float64, tc.m*tc.k)
		b := make([]float64, tc.k*tc.n)
		c := make([]float64, tc.m*ldc)
		for _, s := range [][]float64{a, b, c} {
			for i := range s {
				s[i] = float64(rng.IntN(17) - 8) // small integers: float32 sums are exact
			}
		}
		want := append([]float64(nil), c...)
		naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
		got64 := append([]float64(nil), c...)
		Gemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, got64, ldc)
		a32, b32, got32 := f32(a), f32(b), f32(c)
		Gemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), a32, lda, b32, ldb, float32(tc.beta), got32, ldc)
		for i := range want {
			if got64[i] != want[i] || float64(got32[i]) != want[i] {
				t.Fatalf("%+v: c[%d] = %v (float64), %v (float32), want %v", tc, i, got64[i], got32[i], want[i])
			}
		}
	}
}

func f32(s []float64) []float32 {
	d := make([]float32, len(s))
	for i, v := range s {
		d[i] = float32(v)
	}
	return d
}

func TestIm2col(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ c, h, w, k, s, p int }{
		{1, 3, 3, 3, 1, 0},
		{2, 5, 4, 3, 1, 1},
		{3, 7, 7, 4, 2, 1},
		{2, 6, 5, 2, 3, 2},
		{1, 28, 28, 4, 2, 1},
	} {
		g, err := ConvGeom(tc.c, tc.h, tc.w, tc.k, tc.k, tc.s, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]float64, tc.c*tc.h*tc.w)
		for i := range src {
			src[i] = rng.NormFloat64()
		}
		ld := g.Cols() + 3
		dst := make([]float64, g.Rows()*ld)
		Im2col(dst, ld, src, g)
		// Definition: pixel or zero padding.
		for c := 0; c < tc.c; c++ {
			for i := 0; i < tc.k; i++ {
				for j := 0; j < tc.k; j++ {
					r := (c*tc.k+i)*tc.k + j
					for oy := 0; oy < g.OH; oy++ {
						for ox := 0; ox < g.OW; ox++ {
							iy, ix := oy*tc.s-tc.p+i, ox*tc.s-tc.p+j
							want := 0.0
							if iy >= 0 && iy < tc.h && ix >= 0 && ix < tc.w {
								want = src[(c*tc.h+iy)*tc.w+ix]
							}
							if got := dst[r*ld+oy*g.OW+ox]; got != want {
								t.Fatalf("%+v: col[%d][%d,%d] = %v, want %v", tc, r, oy, ox, got, want)
							}
						}
					}
				}
			}
		}
		// Col2im is the adjoint: <Im2col x, y> == <x, Col2im y>.
		y := make([]float64, len(dst))
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		var lhs float64
		for r := 0; r < g.Rows(); r++ {
			for p := 0; p < g.Cols(); p++ {
				lhs += dst[r*ld+p] * y[r*ld+p]
			}
		}
		back := make([]float64, len(src))
		Col2im(back, y, ld, g)
		var rhs float64
		for i := range src {
			rhs += src[i] * back[i]
		}
		if math.Abs(lhs-rhs) > 1e-9*(1+math.Abs(lhs)) {
			t.Errorf("%+v: <im2col x, y> = %v, <x, col2im y> = %v", tc, lhs, rhs)
		}
	}
}

func TestConvGeomErrors(t *testing.T) {
	for _, tc := range []struct{ c, h, w, k, s, p int }{
		{0, 3, 3, 3, 1, 0}, {1, 2, 2, 3, 1, 0}, {1, 3, 3, 3, 0, 0}, {1, 3, 3, 3, 1, -1},
	} {
		if _, err := ConvGeom(tc.c, tc.h, tc.w, tc.k, tc.k, tc.s, tc.p); err == nil {
			t.Errorf("ConvGeom(%+v): no error", tc)
		}
	}
}
