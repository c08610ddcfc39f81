//go:build !openblas

package gemm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// slowGemm is the contract of the GEMM from its definition: each element
// of C is one chain of FMAs over the sum, each rounded once to T (fma32,
// or math.FMA), then alpha·s, or fma(alpha, s, beta·c) when beta is not
// zero.
func slowGemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for l := 0; l < k; l++ {
				av, bv := opAt(a, lda, tA, i, l), opAt(b, ldb, tB, l, j)
				s = refFMA(av, bv, s)
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = refFMA(alpha, s, beta*c[i*ldc+j])
			}
		}
	}
}

// refFMA is the test's own x·y+z rounded once to T (fma32 is checked
// against math/big by TestFMA32).
func refFMA[T Float](x, y, z T) T {
	switch x := any(x).(type) {
	case float32:
		return T(fma32(x, float32(y), float32(z)))
	case float64:
		return T(math.FMA(x, float64(y), float64(z)))
	}
	panic("unreachable")
}

// unitRoundoff is 2^-p for T's p-bit significand.
func unitRoundoff[T Float]() float64 {
	var x T
	if _, ok := any(x).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

// opAt returns element (i, j) of op(x), x row-major with row stride ld.
func opAt[T Float](x []T, ld int, t bool, i, j int) T {
	if t {
		return x[j*ld+i]
	}
	return x[i*ld+j]
}

func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Hard cases: z cancels most of x·y, or x·y is a tie away from z.
	one := float32(1)
	eps := float32(math.Nextafter32(1, 2) - 1)
	for _, tc := range []struct{ x, y, z, want float32 }{
		{1 + eps, 1 + eps, -1, 2*eps + eps*eps},
		{1 + eps, 1 - eps, -1, -eps * eps},
		{one, one, 0, 1},
		{float32(math.Inf(1)), 2, 1, float32(math.Inf(1))},
		// 1 + eps/2 + tiny: the tie is broken by the tiny part, up.
		{eps / 2, 1 + eps, 1, 1 + eps},
	} {
		if got := fma32(tc.x, tc.y, tc.z); got != tc.want {
			t.Errorf("fma32(%g, %g, %g) = %g, want %g", tc.x, tc.y, tc.z, got, tc.want)
		}
	}
	// Against math/big, on products and addends of any relative size.
	for i := 0; i < 20000; i++ {
		x := float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
		y := float32(rng.NormFloat64())
		z := float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(60)-30)))
		bx, by, bz := new(big.Float).SetPrec(200), new(big.Float).SetPrec(200), new(big.Float).SetPrec(200)
		bx.SetFloat64(float64(x))
		by.SetFloat64(float64(y))
		bz.SetFloat64(float64(z))
		bx.Mul(bx, by).Add(bx, bz)
		want, _ := bx.Float32()
		if got := fma32(x, y, z); got != want {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
}

// TestKernels checks each micro-kernel this machine has against the
// portable one's contract, bit for bit, on random tiles with every
// epilogue, in float32 and float64.
func TestKernels(t *testing.T) {
	t.Run("float32", testKernels[float32])
	t.Run("float64", testKernels[float64])
}

func testKernels[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, kn := range kernels[T]() {
		for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 13, 64, 257} {
			for _, ep := range []struct {
				alpha, beta T
				load        bool
			}{{1, 0, false}, {1, 0, true}, {-0.5, 0, false}, {1.5, 0.25, false}, {2, -1, true}} {
				as, bs, ldc := kn.mr+3, kn.nr+5, kn.nr+2
				a := randSlice[T](rng, (k-1)*as+kn.mr)
				b := randSlice[T](rng, (k-1)*bs+kn.nr)
				c := randSlice[T](rng, (kn.mr-1)*ldc+kn.nr)
				want := append([]T(nil), c...)
				for i := 0; i < kn.mr; i++ {
					for j := 0; j < kn.nr; j++ {
						var s T
						if ep.load {
							s = want[i*ldc+j]
						}
						for l := 0; l < k; l++ {
							s = refFMA(a[l*as+i], b[l*bs+j], s)
						}
						if ep.beta == 0 {
							want[i*ldc+j] = ep.alpha * s
						} else {
							want[i*ldc+j] = refFMA(ep.alpha, s, ep.beta*want[i*ldc+j])
						}
					}
				}
				kn.fn(k, &a[0], as, &b[0], bs, &c[0], ldc, ep.alpha, ep.beta, ep.load)
				for i := range c {
					if bitsOf(c[i]) != bitsOf(want[i]) {
						t.Fatalf("%s k=%d %+v: c[%d] = %g, want %g", kn.name, k, ep, i, c[i], want[i])
					}
				}
			}
		}
	}
}

func sizes() []int {
	s := []int{}
	for i := 1; i <= 70; i++ {
		s = append(s, i)
	}
	return append(s, 97, 127, 131, 257, 263)
}

// TestSgemmContract checks sgemm bit for bit against slowGemm, and within
// rounding against a float64 product, on odd sizes, every transpose,
// alpha and beta, and padded leading dimensions, with each kernel.
func TestSgemmContract(t *testing.T) { testGemmContract[float32](t, 9) }

// TestDgemmContract is TestSgemmContract for float64.
func TestDgemmContract(t *testing.T) { testGemmContract[float64](t, 19) }

// testGemmContract checks Gemm of T bit for bit against slowGemm, and
// within rounding against a sum in float64 (for T = float64, the bound
// is doubled to cover the float64 sum's own rounding).
func testGemmContract[T Float](t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 10))
	u := unitRoundoff[T]()
	if u < 0x1p-24 {
		u *= 2
	}
	sz := sizes()
	var cases []gemmCase
	for i := 0; i < 300; i++ {
		tc := gemmCase{
			tA: rng.IntN(2) == 0, tB: rng.IntN(2) == 0,
			m: sz[rng.IntN(len(sz))], n: sz[rng.IntN(len(sz))], k: sz[rng.IntN(len(sz))],
			alpha: 1, pad: rng.IntN(3),
		}
		switch i % 4 {
		case 1:
			tc.alpha = -0.75
		case 2:
			tc.beta = 0.5
		case 3:
			tc.alpha, tc.beta = 2, -1
		}
		cases = append(cases, tc)
	}
	// Sums longer than blockK, with beta (the path that keeps beta·C aside).
	cases = append(cases, gemmCase{false, false, 9, 37, 600, 1, 1, 1}, gemmCase{true, true, 33, 5, 513, -1, 0.5, 0})
	// Narrow products (n below the widest tile, computed as Cᵀ), every
	// transpose, with long sums and beta.
	for _, tt := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
		cases = append(cases, gemmCase{tt[0], tt[1], 64, 16, 700, 1, 0, 0}, gemmCase{tt[0], tt[1], 70, 3, 300, -0.5, 2, 1},
			gemmCase{tt[0], tt[1], 40, 20, 9, 1, 1, 2})
	}
	for _, kn := range kernels[T]() {
		old := useKernel(kn)
		for _, tc := range cases {
			a, lda, b, ldb, c, ldc := operands[T](tc, rng, rng.IntN(16))
			alpha, beta := T(tc.alpha), T(tc.beta)
			want := append([]T(nil), c...)
			slowGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, alpha, a, lda, b, ldb, beta, want, ldc)
			ref := make([]float64, len(c))
			bound := make([]float64, len(c))
			for i := 0; i < tc.m; i++ {
				for j := 0; j < tc.n; j++ {
					var s, sa float64
					for l := 0; l < tc.k; l++ {
						av, bv := opAt(a, lda, tc.tA, i, l), opAt(b, ldb, tc.tB, l, j)
						s += float64(av) * float64(bv)
						sa += math.Abs(float64(av) * float64(bv))
					}
					ref[i*ldc+j] = float64(tc.alpha)*s + float64(tc.beta)*float64(c[i*ldc+j])
					bound[i*ldc+j] = (float64(tc.k)+2)*u*(math.Abs(float64(tc.alpha))*sa+math.Abs(float64(tc.beta)*float64(c[i*ldc+j]))) + 1e-30
				}
			}
			Gemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, alpha, a, lda, b, ldb, beta, c, ldc)
			for i := 0; i < tc.m; i++ {
				for j := 0; j < tc.n; j++ {
					x := i*ldc + j
					if bitsOf(c[x]) != bitsOf(want[x]) {
						t.Fatalf("%s %v: c[%d,%d] = %g, want %g (bits)", kn.name, tc, i, j, c[x], want[x])
					}
					if d := math.Abs(float64(c[x]) - ref[x]); d > bound[x] {
						t.Fatalf("%s %v: c[%d,%d] = %g, float64 %g (error %g > %g)", kn.name, tc, i, j, c[x], ref[x], d, bound[x])
					}
				}
				// Padding is not written.
				for j := tc.n; j < ldc && i*ldc+j < len(c); j++ {
					if bitsOf(c[i*ldc+j]) != bitsOf(want[i*ldc+j]) {
						t.Fatalf("%s %v: padding c[%d,%d] written", kn.name, tc, i, j)
					}
				}
			}
		}
		useKernel(old)
	}
}

// TestSgemmDeterministic checks that the layers' products give the same
// bits with 1 to 5 goroutines, every kernel and any alignment, within
// rounding of a float64 product on sampled elements.
func TestSgemmDeterministic(t *testing.T) { testGemmDeterministic[float32](t) }

// TestDgemmDeterministic is TestSgemmDeterministic for float64.
func TestDgemmDeterministic(t *testing.T) { testGemmDeterministic[float64](t) }

func testGemmDeterministic[T Float](t *testing.T) {
	if testing.Short() {
		t.Skip("large products")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	u := unitRoundoff[T]()
	if u < 0x1p-24 {
		u *= 2
	}
	defer func(p, g int) { parallelMin, maxGoroutine = p, g }(parallelMin, maxGoroutine)
	for _, s := range layerShapes {
		tc := s.gemmCase
		tc.alpha = 1
		a, lda, b, ldb, c0, ldc := operands[T](tc, rng, 0)
		var first []T
		for _, kn := range kernels[T]() {
			if kn.name == "go" && tc.m*tc.n*tc.k > 1<<22 {
				continue
			}
			old := useKernel(kn)
			for g := 1; g <= 5; g++ {
				maxGoroutine, parallelMin = g, 1<<10
				off := g % 4
				aa := append(make([]T, off), a...)[off:]
				c := append(make([]T, off), c0...)[off:]
				Gemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, aa, lda, b, ldb, 0, c, ldc)
				if first == nil {
					first = c
					for s := 0; s < 200; s++ {
						i, j := rng.IntN(tc.m), rng.IntN(tc.n)
						var r, sa float64
						for l := 0; l < tc.k; l++ {
							av, bv := opAt(a, lda, tc.tA, i, l), opAt(b, ldb, tc.tB, l, j)
							r += float64(av) * float64(bv)
							sa += math.Abs(float64(av) * float64(bv))
						}
						if d := math.Abs(float64(c[i*ldc+j]) - r); d > float64(tc.k+2)*u*sa {
							t.Fatalf("%v: c[%d,%d] = %g, float64 %g", tc, i, j, c[i*ldc+j], r)
						}
					}
					continue
				}
				for x := range c {
					if bitsOf(c[x]) != bitsOf(first[x]) {
						t.Fatalf("%v: %s kernel, %d goroutines: c[%d] = %g, first run %g", tc, kn.name, g, x, c[x], first[x])
					}
				}
			}
			useKernel(old)
		}
	}
}

func TestSgemmPanics(t *testing.T) {
	a := make([]float32, 12)
	for _, f := range []func(){
		func() { Gemm(false, false, 3, 4, 3, 1, a, 2, a, 4, 0, a, 4) },    // lda < k
		func() { Gemm(false, false, 3, 4, 5, 1, a, 5, a, 4, 0, a, 4) },    // a too short
		func() { Gemm(false, false, 3, 4, 3, 1, a, 3, a, 4, 0, a, 3) },    // ldc < n
		func() { Gemm(true, true, 3, 4, 3, 1, a, 3, a, 3, 0, a[:11], 4) }, // c too short
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}
