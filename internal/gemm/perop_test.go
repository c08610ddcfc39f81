package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/positgan/positgan/quant"
)

// formatData returns n values of f: most rounded from a normal
// distribution of the given spread, the rest any code of f (NaR or NaN,
// ±Inf, ±max, ±min, zero) where special is set, and zeros where zeros
// is set, as ReLU makes them.
func formatData(f quant.Format, n int, rng *rand.Rand, spread float64, special, zeros bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		switch r := rng.IntN(10); {
		case special && r == 0:
			s[i] = float32(f.Decode(uint32(rng.IntN(1 << f.Bits()))))
		case zeros && r >= 6:
			s[i] = 0
		default:
			s[i] = f.Round(float32(rng.NormFloat64() * spread))
		}
	}
	return s
}

// TestPerOpKernels runs every row kernel this machine has (the portable
// one, AVX2 and AVX-512 where the CPU has them) through
// PerOpWorkspace.Gemm and checks each result bit for bit against the
// reference kernel perOpGemm, which rounds each product and each partial
// sum with the format's arithmetic in a direct loop: on every 8-bit
// format kind, operands with NaR, NaN, ±Inf, ±max, ±min and zeros, and
// shapes around the kernels' 16- and 64-column blocks.
func TestPerOpKernels(t *testing.T) {
	p81 := quant.MustParse("posit(8,1)")
	p81s4, err := quant.Scale(p81, 4)
	if err != nil {
		t.Fatal(err)
	}
	formats := []quant.Format{p81, p81s4, quant.MustParse("posit(8,2)"), quant.MustParse("fp8-e4m3"), quant.MustParse("fp8-e5m2")}
	shapes := []struct {
		m, n, k int
		tA, tB  bool
	}{
		{1, 1, 1, false, false},
		{3, 16, 2, false, true},
		{2, 17, 9, true, false},
		{5, 63, 33, false, false},
		{4, 64, 40, true, true},
		{3, 65, 17, false, true},
		{70, 130, 30, false, false}, // split over cores
		{5, 130, 100, true, false},
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for _, f := range formats {
		for si, sh := range shapes {
			for variant := range 4 {
				special, zeros := variant&1 != 0, variant&2 != 0
				spread := []float64{0.3, 1, 4, 40}[rng.IntN(4)]
				a := formatData(f, sh.m*sh.k, rng, spread, special, zeros && si%2 == 0)
				b := formatData(f, sh.k*sh.n, rng, spread/8, special, zeros && si%2 == 1)
				lda, ldb := sh.k, sh.n
				if sh.tA {
					lda = sh.m
				}
				if sh.tB {
					ldb = sh.k
				}
				want := make([]float32, sh.m*sh.n)
				perOpGemm(f, sh.tA, sh.tB, sh.m, sh.n, sh.k, a, lda, b, ldb, want, sh.n)
				for _, kern := range perOpKernels() {
					got := make([]float32, sh.m*sh.n)
					w := PerOpWorkspace{kernel: kern.fn}
					if !w.setFormat(f) || !w.pack(sh.tA, sh.tB, sh.m, sh.n, sh.k, a, lda, b, ldb) {
						t.Fatalf("%s %v: the table-driven kernel is not used", kern.name, f)
					}
					w.Gemm(f, sh.tA, sh.tB, sh.m, sh.n, sh.k, a, lda, b, ldb, got, sh.n)
					for i := range want {
						if !sameBits(got[i], want[i]) {
							t.Errorf("%s %v %dx%dx%d special=%v zeros=%v: c[%d] = %g, reference %g",
								kern.name, f, sh.m, sh.n, sh.k, special, zeros, i, got[i], want[i])
							break
						}
					}
				}
			}
		}
	}
}

// TestPerOpWorkspaceReuse runs one workspace through a sequence of
// products whose operands come from different formats (so that the
// memo of rounded products fills up and starts afresh) and whose
// accumulation format changes, checking every result against the
// reference kernel.
func TestPerOpWorkspaceReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	p81 := quant.MustParse("posit(8,1)")
	var ops []quant.Format
	for _, sc := range []int{0, 2, 4, 6, 8} {
		f, err := quant.Scale(p81, sc)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, f)
	}
	ops = append(ops, quant.MustParse("fp8-e4m3"), quant.MustParse("fp8-e5m2"))
	accs := []quant.Format{p81, ops[2], quant.MustParse("fp8-e4m3")}
	var w PerOpWorkspace
	for call := range 40 {
		fa, fb, f := ops[rng.IntN(len(ops))], ops[rng.IntN(len(ops))], accs[call/10%len(accs)]
		const m, n, k = 6, 70, 30
		a := formatData(fa, m*k, rng, 1, call%3 == 0, false)
		b := formatData(fb, k*n, rng, 0.1, call%3 == 0, false)
		got, want := make([]float32, m*n), make([]float32, m*n)
		w.Gemm(f, false, false, m, n, k, a, k, b, n, got, n)
		perOpGemm(f, false, false, m, n, k, a, k, b, n, want, n)
		for i := range want {
			if !sameBits(got[i], want[i]) {
				t.Fatalf("call %d (%v×%v in %v): c[%d] = %g, reference %g", call, fa, fb, f, i, got[i], want[i])
			}
		}
	}
}

// TestPerOpHashedOperands checks the table-driven kernel on operands that
// are not values of an 8-bit format but have at most 256 distinct values
// (found by hashing, not by their top 16 bits), against the reference.
func TestPerOpHashedOperands(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	p16 := quant.MustParse("posit(16,1)")
	f := quant.MustParse("posit(8,1)")
	set := formatData(p16, 200, rng, 1, false, false)
	pick := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = set[rng.IntN(len(set))]
		}
		return s
	}
	const m, n, k = 5, 70, 40
	a, b := pick(m*k), pick(k*n)
	var w PerOpWorkspace
	if !w.setFormat(f) || !w.pack(false, false, m, n, k, a, k, b, n) {
		t.Fatal("the table-driven kernel is not used")
	}
	got, want := make([]float32, m*n), make([]float32, m*n)
	w.Gemm(f, false, false, m, n, k, a, k, b, n, got, n)
	perOpGemm(f, false, false, m, n, k, a, k, b, n, want, n)
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Fatalf("c[%d] = %g, reference %g", i, got[i], want[i])
		}
	}
}

// TestPerOpWideAccumulator checks per-op GEMMs whose accumulation format
// is too wide for tables (16-bit posit and float), on operands of an 8-bit
// format and on operands of many values, transposed or not, against a
// direct loop written from the definition: each product and each partial
// sum rounded once, to nearest, by the format's Round64 of the exact
// float64 value (the test checks that the data keep them exact).
func TestPerOpWideAccumulator(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // split the rows into parts
	rng := rand.New(rand.NewPCG(33, 34))
	p8, p16 := quant.MustParse("posit(8,1)"), quant.MustParse("posit(16,1)")
	for _, f := range []quant.Format{p16, quant.MustParse("fp16")} {
		for _, operands := range []quant.Format{p8, p16} {
			// The 300-row shapes have more rows than k: a transposed A's
			// later row parts start past lo·lda (a bug once sliced there).
			for _, tr := range [][5]int{{0, 0, 7, 20, 50}, {1, 1, 7, 20, 50}, {1, 0, 7, 20, 50}, {1, 0, 300, 4, 3}, {0, 1, 300, 4, 3}} {
				tA, tB := tr[0] == 1, tr[1] == 1
				m, n, k := tr[2], tr[3], tr[4]
				a := formatData(operands, m*k, rng, 1, false, true)
				b := formatData(operands, k*n, rng, 0.1, false, false)
				a[7] = float32(math.NaN()) // a row sums to NaN
				lda, ldb := k, n
				if tA {
					lda = m
				}
				if tB {
					ldb = k
				}
				at := func(i, l int) float64 {
					if tA {
						return float64(a[l*lda+i])
					}
					return float64(a[i*lda+l])
				}
				bt := func(l, j int) float64 {
					if tB {
						return float64(b[j*ldb+l])
					}
					return float64(b[l*ldb+j])
				}
				got := make([]float32, m*n)
				var w PerOpWorkspace
				w.Gemm(f, tA, tB, m, n, k, a, lda, b, ldb, got, n)
				for i := range m {
					for j := range n {
						var s float64
						for l := range k {
							p := f.Round64(at(i, l) * bt(l, j))
							if l == 0 {
								s = p
								continue
							}
							if u := s + p; !math.IsNaN(u) && (s-(u-(u-s)))+(p-(u-s)) != 0 { // TwoSum's error
								t.Fatalf("test data: %g + %g is not exact in float64", s, p)
							}
							s = f.Round64(s + p)
						}
						if !sameBits(got[i*n+j], float32(s)) {
							t.Errorf("%v on %v, tA=%v tB=%v: c[%d][%d] = %g, want %g", f, operands, tA, tB, i, j, got[i*n+j], s)
						}
					}
				}
			}
		}
	}
}

// BenchmarkPerOpKernels times each row kernel this machine has on a
// per-op product of the shape of a dcgan64 step's largest ones (posit(8,1)
// operands of normal spread), long enough in k for the kernel to dominate.
// GMAC/cpu-s, per CPU second of all threads, is steadier than GMAC/s on a
// shared machine.
func BenchmarkPerOpKernels(b *testing.B) {
	const m, n, k = 128, 1024, 1024
	rng := rand.New(rand.NewPCG(5, 5))
	p := quant.MustParse("posit(8,1)")
	a := formatData(p, m*k, rng, 1, false, false)
	bb := formatData(p, k*n, rng, 0.1, false, false)
	c := make([]float32, m*n)
	for _, kern := range perOpKernels() {
		b.Run(kern.name, func(b *testing.B) {
			w := PerOpWorkspace{kernel: kern.fn}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				w.Gemm(p, false, false, m, n, k, a, k, bb, n, c, n)
			}
			macs := float64(m*n*k) * float64(b.N)
			b.ReportMetric(macs/b.Elapsed().Seconds()/1e9, "GMAC/s")
			b.ReportMetric(macs/(cpuTime()-cpu0)/1e9, "GMAC/cpu-s")
		})
	}
}

// TestPerOpKernelLevel checks that the level named by POSITGAN_CPU picks
// the fastest row kernel at or below it.
func TestPerOpKernelLevel(t *testing.T) {
	name := func(fn perOpRowKernel) string {
		for _, k := range perOpKernels() {
			if fmt.Sprintf("%p", k.fn) == fmt.Sprintf("%p", fn) {
				return k.name
			}
		}
		return "?"
	}
	ks := perOpKernels()
	want := map[level]string{levelGeneric: "go", levelAVX512: ks[len(ks)-1].name}
	for _, k := range ks {
		if k.name == "avx2" {
			want[levelAVX2] = "avx2"
		}
	}
	for l, w := range want {
		if got := name(perOpKernelAt(l)); got != w {
			t.Errorf("level %s: kernel %s, want %s", l, got, w)
		}
	}
}

// BenchmarkPerOpWide times per-op GEMMs with a 16-bit accumulator, which
// call the format's arithmetic for every sum: on posit(8,1) operands (a
// table of the rounded products) and on posit(16,1) operands of many
// values (the reference kernel, rows split over the cores).
func BenchmarkPerOpWide(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	p8, p16 := quant.MustParse("posit(8,1)"), quant.MustParse("posit(16,1)")
	const m, n, k = 32, 32, 64
	for _, tc := range []struct {
		name string
		op   quant.Format
	}{{"posit8-operands", p8}, {"posit16-operands", p16}} {
		a, bb := formatData(tc.op, m*k, rng, 1, false, false), formatData(tc.op, k*n, rng, 0.1, false, false)
		c := make([]float32, m*n)
		b.Run(tc.name, func(b *testing.B) {
			var w PerOpWorkspace
			cpu0 := cpuTime()
			for b.Loop() {
				w.Gemm(p16, false, false, m, n, k, a, k, bb, n, c, n)
			}
			macs := float64(m*n*k) * float64(b.N)
			b.ReportMetric(macs/b.Elapsed().Seconds()/1e6, "MMAC/s")
			b.ReportMetric(macs/(cpuTime()-cpu0)/1e6, "MMAC/cpu-s")
		})
	}
}
