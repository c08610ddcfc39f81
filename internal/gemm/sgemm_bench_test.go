//go:build !openblas

package gemm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

type gemmCase struct {
	tA, tB      bool
	m, n, k     int
	alpha, beta float32
	pad         int // extra elements in each leading dimension
}

func (tc gemmCase) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s/%dx%dx%d/a%g/b%g/pad%d", t(tc.tA), t(tc.tB), tc.m, tc.n, tc.k, tc.alpha, tc.beta, tc.pad)
}

// shape is the layout and size, as in "NT/64x1024x514".
func (tc gemmCase) shape() string {
	s := tc.String()
	return s[:strings.Index(s, "/a")]
}

// operands returns random a, b, c of T for tc, each offset by off
// elements from the start of its allocation (to vary the alignment).
func operands[T Float](tc gemmCase, rng *rand.Rand, off int) (a []T, lda int, b []T, ldb int, c []T, ldc int) {
	ra, ca := tc.m, tc.k
	if tc.tA {
		ra, ca = tc.k, tc.m
	}
	rb, cb := tc.k, tc.n
	if tc.tB {
		rb, cb = tc.n, tc.k
	}
	lda, ldb, ldc = ca+tc.pad, cb+tc.pad, tc.n+tc.pad
	a = randSlice[T](rng, off+(ra-1)*lda+ca)[off:]
	b = randSlice[T](rng, off+(rb-1)*ldb+cb)[off:]
	c = randSlice[T](rng, off+(tc.m-1)*ldc+tc.n)[off:]
	return
}

func randSlice[T Float](rng *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(rng.NormFloat64())
	}
	return s
}

// layerShapes are the products of a training step at batch 64 (one D and
// one G update), m×n×k in the layouts nn calls: the default MNIST
// CGAN with 2 classes (G 100+2→128→256→512→1024→784, D 784+2→512→512→1,
// labels at every layer) and the 28×28 DCGAN with 64 base features (G
// 100→128·7·7→64·14·14→1·28·28, D its mirror; Linear x·Wᵀ is NT, its
// input gradient NN, its weight gradient TN; Conv2d W·col is NN).
var layerShapes = []struct {
	model string
	gemmCase
}{
	{"cgan", gemmCase{m: 64, n: 128, k: 102, tB: true}},
	{"cgan", gemmCase{tA: true, m: 128, n: 102, k: 64}},
	{"cgan", gemmCase{m: 64, n: 256, k: 130, tB: true}},
	{"cgan", gemmCase{m: 64, n: 130, k: 256}},
	{"cgan", gemmCase{tA: true, m: 256, n: 130, k: 64}},
	{"cgan", gemmCase{m: 64, n: 512, k: 258, tB: true}},
	{"cgan", gemmCase{m: 64, n: 258, k: 512}},
	{"cgan", gemmCase{tA: true, m: 512, n: 258, k: 64}},
	{"cgan", gemmCase{m: 64, n: 1024, k: 514, tB: true}},
	{"cgan", gemmCase{m: 64, n: 514, k: 1024}},
	{"cgan", gemmCase{tA: true, m: 1024, n: 514, k: 64}},
	{"cgan", gemmCase{m: 64, n: 784, k: 1026, tB: true}},
	{"cgan", gemmCase{m: 64, n: 1026, k: 784}},
	{"cgan", gemmCase{tA: true, m: 784, n: 1026, k: 64}},
	{"cgan", gemmCase{m: 64, n: 512, k: 786, tB: true}},
	{"cgan", gemmCase{m: 64, n: 786, k: 512}},
	{"cgan", gemmCase{tA: true, m: 512, n: 786, k: 64}},
	{"cgan", gemmCase{m: 64, n: 512, k: 514, tB: true}},
	{"cgan", gemmCase{m: 64, n: 514, k: 512}},
	{"cgan", gemmCase{tA: true, m: 512, n: 514, k: 64}},
	{"dcgan64", gemmCase{tA: true, m: 6272, n: 64, k: 100}},
	{"dcgan64", gemmCase{m: 100, n: 64, k: 6272}},
	{"dcgan64", gemmCase{m: 100, n: 6272, k: 64, tB: true}},
	{"dcgan64", gemmCase{tA: true, m: 1024, n: 3136, k: 128}},
	{"dcgan64", gemmCase{m: 128, n: 3136, k: 1024}},
	{"dcgan64", gemmCase{m: 128, n: 1024, k: 3136, tB: true}},
	{"dcgan64", gemmCase{tA: true, m: 16, n: 12544, k: 64}},
	{"dcgan64", gemmCase{m: 64, n: 12544, k: 16}},
	{"dcgan64", gemmCase{m: 64, n: 16, k: 12544, tB: true}},
	{"dcgan64", gemmCase{m: 1, n: 64, k: 6272}},
	{"dcgan64", gemmCase{tA: true, m: 6272, n: 64, k: 1}},
	{"dcgan64", gemmCase{m: 1, n: 6272, k: 64, tB: true}},
}

// A benchShape is a product of BenchmarkSgemm whose b has rows padB
// longer than the operand.
type benchShape struct {
	model string
	gemmCase
	padB int
}

// benchShapes are more products for BenchmarkSgemm, too large for the
// tests that run every layer shape: the largest of issue 13's DCGAN-28 (G
// 100→256·7·7→128·14·14→1·28·28, D 1→64→128→1). Its ConvTranspose2d
// products read the columns of a whole batch (3136 wide): its backward
// NN products, and its forward TN ones 16 images (784 columns) of the
// 3136 at a time (nn's col2imProduct), with the stride of the whole.
var benchShapes = []benchShape{
	{"dcgan28", gemmCase{m: 256, n: 3136, k: 2048}, 0},
	{"dcgan28", gemmCase{tA: true, m: 2048, n: 784, k: 256}, 3136 - 784},
	{"dcgan28", gemmCase{tA: true, m: 1024, n: 784, k: 128}, 3136 - 784},
	{"dcgan28", gemmCase{m: 256, n: 2048, k: 3136, tB: true}, 0},
}

// BenchmarkSgemm times Gemm at each layer shape, reporting GFLOP/s (2mnk
// a product) by wall time and by the process's CPU time (cpu-GFLOP/s,
// steadier on a shared machine; equal to GFLOP/s on one idle thread).
// Build with -tags openblas (and OPENBLAS_NUM_THREADS=1) to time
// OpenBLAS, and run with -cpu 1 for one thread.
func BenchmarkSgemm(b *testing.B) { benchGemm[float32](b) }

// BenchmarkDgemm is BenchmarkSgemm in float64, the products of
// QuireWorkspace.
func BenchmarkDgemm(b *testing.B) { benchGemm[float64](b) }

func benchGemm[T Float](b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := slices.Clone(benchShapes)
	for _, s := range layerShapes {
		all = append(all, benchShape{s.model, s.gemmCase, 0})
	}
	for _, s := range all {
		tc := s.gemmCase
		tc.alpha = 1
		a, lda, bb, ldb, c, ldc := operands[T](tc, rng, 0)
		name := fmt.Sprintf("%s/%s", s.model, tc.shape())
		if s.padB > 0 {
			// b's rows are padB longer: ldb is that of the whole matrix.
			ldb += s.padB
			rb := tc.k
			if tc.tB {
				rb = tc.n
			}
			bb = randSlice[T](rng, (rb-1)*ldb+ldb-s.padB)
			name += fmt.Sprintf("/ldb%d", ldb)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				Gemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, a, lda, bb, ldb, 0, c, ldc)
			}
			flop := 2 * float64(tc.m) * float64(tc.n) * float64(tc.k) * float64(b.N)
			b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(flop/cpu/1e9, "cpu-GFLOP/s")
			}
		})
	}
}

// BenchmarkSgemmKernel times each float32 micro-kernel this machine runs
// on one tile with k = blockK, its packed panels in the L1 cache: the
// ceiling of the GEMM at that level (two FMA units of 8 lanes, AVX2, or
// 16, AVX-512, give 32 or 64 flops a cycle).
func BenchmarkSgemmKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kn := range kernels[float32]() {
		ap, bp := randSlice[float32](rng, kn.mr*blockK), randSlice[float32](rng, kn.nr*blockK)
		c := make([]float32, kn.mr*kn.nr)
		b.Run(kn.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				kn.fn(blockK, &ap[0], kn.mr, &bp[0], kn.nr, &c[0], kn.nr, 1, 0, false)
			}
			flop := 2 * float64(kn.mr*kn.nr*blockK) * float64(b.N)
			b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(flop/cpu/1e9, "cpu-GFLOP/s")
			}
		})
	}
}
