package quant

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

func mustPosit(t testing.TB, n, es, k int) Posit {
	t.Helper()
	p, err := NewPosit(n, es)
	if err != nil {
		t.Fatal(err)
	}
	if k != 0 {
		f, err := Scale(p, k)
		if err != nil {
			t.Fatal(err)
		}
		p = f.(Posit)
	}
	return p
}

// refCache shares the reference tables of posit(n,es) for n <= 16 between
// tests: building them from big.Rat decodes is the slow part.
var refCache struct {
	sync.Mutex
	m map[[3]int]*refFormat
}

// refFor returns the reference for p.
func refFor(p Posit) *refFormat {
	key := [3]int{p.N(), p.ES(), p.ScaleExp()}
	refCache.Lock()
	defer refCache.Unlock()
	if f, ok := refCache.m[key]; ok {
		return f
	}
	if refCache.m == nil {
		refCache.m = make(map[[3]int]*refFormat)
	}
	var f *refFormat
	if base, ok := refCache.m[[3]int{p.N(), p.ES(), 0}]; ok && p.N() <= 16 {
		// Scaling by a power of two is exact on float64s in range.
		f = &refFormat{n: base.n, es: base.es, k: p.ScaleExp()}
		f.val = make([]float64, len(base.val))
		f.tie = make([]float64, len(base.tie))
		for i, v := range base.val {
			f.val[i] = math.Ldexp(v, -f.k)
		}
		for i, v := range base.tie {
			f.tie[i] = math.Ldexp(v, -f.k)
		}
	} else {
		f = newRefFormat(p.N(), p.ES(), p.ScaleExp())
	}
	refCache.m[key] = f
	return f
}

func sameFloat32(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

func sameFloat64(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// TestPositDecodeAnchors checks values worked out by hand from the
// definition: value = useed^k · 2^e · 1.f, useed = 2^(2^es), where the
// regime k is r-1 for a run of r ones and -r for a run of r zeros.
func TestPositDecodeAnchors(t *testing.T) {
	tests := []struct {
		n, es, k int
		code     uint32
		want     float64
	}{
		{8, 0, 0, 0x40, 1},                  // body 1000000: regime 10, k=0
		{8, 0, 0, 0x50, 1.5},                // 10|10000: fraction .1
		{8, 0, 0, 0x7f, 64},                 // maxpos: seven ones, k=6
		{8, 0, 0, 0x01, 1.0 / 64},           // minpos: six zeros, k=-6
		{8, 0, 0, 0xc0, -1},                 // -0x40 in two's complement
		{8, 0, 0, 0xff, -1.0 / 64},          // -minpos
		{8, 0, 0, 0x00, 0},                  //
		{8, 1, 0, 0x60, 4},                  // 110|0|000: k=1, useed=4
		{8, 1, 0, 0x48, 1.5},                // 10|0|1000
		{8, 1, 0, 0x7e, 1024},               // 1111110: k=5, no exponent bits left
		{8, 1, 0, 0x7f, 4096},               // maxpos 4^6
		{8, 1, 0, 0x02, 1.0 / 1024},         // 000001|0: k=-5, e=0
		{8, 1, 0, 0x01, 1.0 / 4096},         // minpos
		{8, 2, 0, 0x7f, 1 << 24},            // 16^6
		{8, 2, 0, 0x02, 0x1p-20},            // 000001|0(0): k=-5, e=0
		{8, 1, 3, 0x40, 1.0 / 8},            // scale 3: codes hold x·2^3
		{16, 1, 0, 0x7fff, 1 << 28},         // maxpos 4^14
		{16, 1, 0, 0x4000, 1},               //
		{16, 1, 0, 0x0001, 0x1p-28},         //
		{16, 2, 0, 0x7fff, 0x1p56},          //
		{16, 0, 0, 0x4001, 1 + 0x1p-13},     // 10|0000000000001
		{6, 1, 0, 0x1f, 256},                // 4^4
		{5, 4, 0, 0x0f, 0x1p48},             // 65536^3
		{3, 0, 0, 0x3, 2},                   // 11: k=1
		{3, 0, 0, 0x1, 0.5},                 // 01: k=-1
		{2, 0, 0, 0x1, 1},                   // 1: k=0
		{2, 0, 0, 0x3, -1},                  //
		{32, 2, 0, 0x40000000, 1},           //
		{32, 2, 0, 0x7fffffff, 0x1p120},     // 16^30
		{32, 2, 0, 0x00000001, 0x1p-120},    //
		{32, 2, 0, 0x3fffffff, 1 - 0x1p-28}, // 01|11|1...1: 16^-1·2^3·(2-2^-27)
		{32, 2, 0, 0x80000001, -0x1p120},    // -maxpos
		{32, 2, 0, 0x48000000, 2},           // 10|01|0...: e=1
		{32, 2, 0, 0x40000001, 1 + 0x1p-27}, // 27 fraction bits
		{32, 2, -10, 0x40000001, 0x1p10 + 0x1p-17},
	}
	for _, tt := range tests {
		p := mustPosit(t, tt.n, tt.es, tt.k)
		if got := p.Decode(tt.code); got != tt.want {
			t.Errorf("%v.Decode(%#x) = %g, want %g", p, tt.code, got, tt.want)
		}
		ref := &refFormat{n: tt.n, es: tt.es, k: tt.k}
		if got := ref.value(uint64(tt.code)); got != tt.want {
			t.Errorf("reference %v value(%#x) = %g, want %g", p, tt.code, got, tt.want)
		}
	}
	for _, n := range []int{2, 5, 8, 16, 32} {
		p := mustPosit(t, n, 1, 0)
		if got := p.Decode(p.NaR()); !math.IsNaN(got) {
			t.Errorf("%v.Decode(NaR) = %g, want NaN", p, got)
		}
	}
}

// TestPositRoundAnchors checks roundings worked out by hand. Near minpos
// and maxpos the tie between two codes is geometric: the value of the
// (n+1)-bit posit between them.
func TestPositRoundAnchors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		n, es, k int
		x, want  float32
	}{
		// posit(8,1): 1024 = 0x7e and 4096 = 0x7f; the tie is the 9-bit
		// posit 0xfd = 1111110|1 = 4^5·2^1 = 2048, not 2560.
		{8, 1, 0, 2048, 1024}, // tie: even code 0x7e
		{8, 1, 0, 2047, 1024},
		{8, 1, 0, 2049, 4096},
		{8, 1, 0, 2500, 4096}, // above the tie, below the midpoint
		{8, 1, 0, 1e6, 4096},  // beyond maxpos
		{8, 1, 0, -1e6, -4096},
		{8, 1, 0, 1e-30, 1.0 / 4096}, // below minpos: minpos, never 0
		{8, 1, 0, -1e-30, -1.0 / 4096},
		{8, 1, 0, math.SmallestNonzeroFloat32, 1.0 / 4096},
		{8, 1, 0, 0, 0},
		{8, 1, 0, float32(math.Copysign(0, -1)), 0}, // -0 encodes to 0, which decodes to +0
		{8, 1, 0, inf, nan},
		{8, 1, 0, -inf, nan},
		{8, 1, 0, nan, nan},
		// posit(8,1,scale=3) rounds 8x as posit(8,1) does, then divides by 8.
		{8, 1, 3, 256, 128},
		{8, 1, 3, 257, 512},
		// posit(8,0) has 5 fraction bits at 1: spacing 1/32.
		{8, 0, 0, 1 + 1.0/64, 1},          // tie: even code 0x40
		{8, 0, 0, 1 + 3.0/64, 1 + 2.0/32}, // tie: even code 0x42
		{8, 0, 0, 1 + 1.0/64 + 1.0/1024, 1 + 1.0/32},
		// posit(8,0): 32 = 0x7e, 64 = 0x7f; 9-bit 0xfd = 111111|0|1 = 32·1.5.
		{8, 0, 0, 48, 32},
		{8, 0, 0, 48.0001, 64},
		// posit(8,2): minpos 2^-24 = 0x01 and 0x02 = 2^-20; the tie is the
		// 9-bit 0x003 = 0000001|1 = 16^-6·2^2 = 2^-22.
		{8, 2, 0, 0x1p-22, 0x1p-20}, // tie: even code 0x02
		{8, 2, 0, 0x1p-22 * 0.99, 0x1p-24},
		{8, 2, 0, 0x1p-21, 0x1p-20}, // far above the midpoint's log
		// posit(16,1) near 3: regime 10, e=1, 12 fraction bits, spacing 2^-11.
		{16, 1, 0, 3.0000001, 3},
		{16, 1, 0, 3 + 0x1p-12, 3}, // tie: even
		{16, 1, 0, 3 + 0x1p-12 + 0x1p-20, 3 + 0x1p-11},
		{16, 1, 0, 3 + 0x1p-11 + 0x1p-12, 3 + 0x1p-10}, // tie: even
	}
	for _, tt := range tests {
		p := mustPosit(t, tt.n, tt.es, tt.k)
		if got := p.Round(tt.x); !sameFloat32(got, tt.want) {
			t.Errorf("%v.Round(%g) = %g, want %g", p, tt.x, got, tt.want)
		}
		if got := p.Round64(float64(tt.x)); !sameFloat64(got, float64(tt.want)) {
			t.Errorf("%v.Round64(%g) = %g, want %g", p, tt.x, got, tt.want)
		}
		if got := (&refFormat{n: tt.n, es: tt.es, k: tt.k}).round32(tt.x); !sameFloat32(got, tt.want) {
			t.Errorf("reference %v round(%g) = %g, want %g", p, tt.x, got, tt.want)
		}
	}
}

// TestPositFloat32Range checks Round where the posit value is not a
// float32: it saturates to ±MaxFloat32 or to the smallest subnormal, so a
// nonzero value stays nonzero and finite, while Round64 is exact.
func TestPositFloat32Range(t *testing.T) {
	tests := []struct {
		n, es, k int
		x        float32
		want     float32
		want64   float64
	}{
		// posit(16,4) at 2^127 has 2 fraction bits; MaxFloat32 is beyond
		// the tie 1.875·2^127, so it rounds to 2^128.
		{16, 4, 0, math.MaxFloat32, math.MaxFloat32, 0x1p128},
		{16, 4, 0, -math.MaxFloat32, -math.MaxFloat32, -0x1p128},
		{16, 4, 0, 0x1p127 * 1.625, 0x1p127 * 1.5, 0x1p127 * 1.5}, // tie: even fraction 10
		{16, 4, 0, 0x1p127 * 1.875, math.MaxFloat32, 0x1p128},     // tie: fraction 11 is odd
		// posit(8,0,scale=200): 1·2^200 saturates to maxpos 64, which is
		// 2^6·2^-200 = 2^-194 after unscaling: below every float32.
		{8, 0, 200, 1, math.SmallestNonzeroFloat32, 0x1p-194},
		{8, 0, 200, -1, -math.SmallestNonzeroFloat32, -0x1p-194},
		// posit(8,0,scale=-200): 2^-200 saturates to minpos 2^-6, i.e. 2^194.
		{8, 0, -200, 1, math.MaxFloat32, 0x1p194},
		{8, 0, -200, math.SmallestNonzeroFloat32, math.MaxFloat32, 0x1p194},
	}
	for _, tt := range tests {
		p := mustPosit(t, tt.n, tt.es, tt.k)
		if got := p.Round(tt.x); got != tt.want {
			t.Errorf("%v.Round(%g) = %g, want %g", p, tt.x, got, tt.want)
		}
		if got := p.Round64(float64(tt.x)); got != tt.want64 {
			t.Errorf("%v.Round64(%g) = %g, want %g", p, tt.x, got, tt.want64)
		}
		dst := make([]float32, 1)
		p.RoundSlice(dst, []float32{tt.x})
		if dst[0] != tt.want {
			t.Errorf("%v.RoundSlice(%g) = %g, want %g", p, tt.x, dst[0], tt.want)
		}
	}
}

// positFormats lists posit(n,es) for 2 <= n <= 16, 0 <= es <= 4.
func positFormats() [][2]int {
	var fs [][2]int
	for n := 2; n <= 16; n++ {
		for es := 0; es <= 4; es++ {
			fs = append(fs, [2]int{n, es})
		}
	}
	return fs
}

// testScales returns the exponent biases to test posit(n,es) with: 0, two
// small ones, and for es = 4, whose values overflow float32, two large
// ones that bring each end of the range into float32's.
func testScales(es int) []int {
	if es == 4 {
		return []int{0, 3, -5, 100, -100}
	}
	return []int{0, 3, -5}
}

// TestPositDecodeEveryCode checks Decode on every code of every posit(n,es)
// with n <= 16 against the reference, and that Encode and Encode64 map
// each value back to its code.
func TestPositDecodeEveryCode(t *testing.T) {
	t.Parallel()
	for _, f := range positFormats() {
		for _, k := range testScales(f[1]) {
			p := mustPosit(t, f[0], f[1], k)
			ref := refFor(p)
			errs := 0
			for c := uint32(0); c <= p.Mask() && errs < 10; c++ {
				want := ref.valueOf(uint64(c))
				got := p.Decode(c)
				if !sameFloat64(got, want) {
					t.Errorf("%v.Decode(%#x) = %g, want %g", p, c, got, want)
					errs++
				}
				if c == p.NaR() {
					continue
				}
				if e := p.Encode64(want); e != c {
					t.Errorf("%v.Encode64(Decode(%#x) = %g) = %#x", p, c, want, e)
					errs++
				}
				if x := float32(want); float64(x) == want {
					if e := p.Encode(x); e != c {
						t.Errorf("%v.Encode(Decode(%#x) = %g) = %#x", p, c, want, e)
						errs++
					}
				}
			}
			if got, want := p.MaxPos(), ref.valueOf(ref.maxCode()); got != want {
				t.Errorf("%v.MaxPos() = %g, want %g", p, got, want)
			}
			if got, want := p.MinPos(), ref.valueOf(1); got != want {
				t.Errorf("%v.MinPos() = %g, want %g", p, got, want)
			}
		}
	}
}

// float32Probes returns inputs that catch rounding errors for ref: every
// value and tie point that is a float32, one float32 ulp either side of
// each, both signs; values beyond maxpos and below minpos; float32
// extremes, subnormals and specials; and random bit patterns.
func float32Probes(ref *refFormat, rng *rand.Rand, random int) []float32 {
	var xs []float32
	add := func(v float64) {
		x := float32(v)
		if float64(x) != v || x == 0 || math.IsInf(float64(x), 0) {
			return // not a float32
		}
		for _, y := range []float32{x, math.Nextafter32(x, 0), math.Nextafter32(x, float32(math.Inf(1)))} {
			xs = append(xs, y, -y)
		}
	}
	mc := ref.maxCode()
	for c := uint64(1); c <= mc; c++ {
		add(ref.val[c])
		if c < mc {
			add(ref.tie[c])
		}
	}
	maxpos, minpos := ref.val[mc], ref.val[1]
	for _, v := range []float64{maxpos * 1.5, maxpos * 2, maxpos * 1e10, minpos / 2, minpos * 0.75, minpos / 1e10} {
		if x := float32(v); x != 0 && !math.IsInf(float64(x), 0) {
			xs = append(xs, x, -x)
		}
	}
	inf := float32(math.Inf(1))
	xs = append(xs, 0, float32(math.Copysign(0, -1)), inf, -inf, float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		0x1p-126, -0x1p-126, 0x1p-126-0x1p-149, 3*0x1p-149, 1, -1)
	for range random {
		xs = append(xs, math.Float32frombits(rng.Uint32()))
	}
	return xs
}

// TestPositRoundFloat32 checks Encode, Round and every RoundSlice kernel
// against the reference on float32Probes, for every posit(n,es) with
// n <= 16, with and without exponent bias.
func TestPositRoundFloat32(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	kernels := positKernels()
	probes := 0
	defer func() { t.Logf("%d inputs checked on %d kernels", probes, len(kernels)) }()
	for _, f := range positFormats() {
		for _, k := range testScales(f[1]) {
			p := mustPosit(t, f[0], f[1], k)
			ref := refFor(p)
			xs := float32Probes(ref, rng, 2000)
			probes += len(xs)
			want := make([]float32, len(xs))
			// Vector kernels take shortcuts for blocks whose lanes all lie
			// in one region, so the inputs near minpos and maxpos and near
			// float32's extremes are also checked in blocks of 16 copies.
			var bxs, bwant []float32
			errs := 0
			for i, x := range xs {
				wc := ref.encode(float64(x))
				want[i] = ref.float32(wc)
				if got := p.Encode(x); got != uint32(wc) && errs < 10 {
					t.Errorf("%v.Encode(%g) = %#x, want %#x", p, x, got, wc)
					errs++
				}
				if got := p.Round(x); !sameFloat32(got, want[i]) && errs < 10 {
					t.Errorf("%v.Round(%g) = %g, want %g", p, x, got, want[i])
					errs++
				}
				c := min(wc, -wc&(1<<f[0]-1)) // the code of |x|
				e := math.Float32bits(x) >> 23 & 0xff
				if c <= 4 || c+4 > ref.maxCode() || e < 1+20 || e > 254-20 || i%50 == 0 {
					for range 16 {
						bxs, bwant = append(bxs, x), append(bwant, want[i])
					}
				}
			}
			checkKernels(t, p, kernels, xs, want)
			checkKernels(t, p, kernels, bxs, bwant)
			probes += len(bxs)
		}
	}
}

// checkKernels runs each kernel on xs, into a new slice and in place, and
// compares with want.
func checkKernels(t *testing.T, p Posit, kernels []positSliceKernel, xs, want []float32) {
	t.Helper()
	got := make([]float32, len(xs))
	for _, kern := range append(kernels, positSliceKernel{"RoundSlice", func(dst, src []float32, p Posit) { p.RoundSlice(dst, src) }}) {
		for _, inPlace := range []bool{false, true} {
			if inPlace {
				copy(got, xs)
				kern.round(got, got, p)
			} else {
				clear(got)
				kern.round(got, xs, p)
			}
			errs := 0
			for i := range xs {
				if !sameFloat32(got[i], want[i]) && errs < 10 {
					t.Errorf("%v kernel %s (in place %v): x = %g (%#08x): got %g, want %g",
						p, kern.name, inPlace, xs[i], math.Float32bits(xs[i]), got[i], want[i])
					errs++
				}
			}
		}
	}
}

// TestPositRoundFloat64 checks Encode64 and Round64 against the reference
// on every value and tie point and one float64 ulp either side, for every
// posit(n,es) with n <= 16.
func TestPositRoundFloat64(t *testing.T) {
	t.Parallel()
	for _, f := range positFormats() {
		for _, k := range []int{0, -7} {
			p := mustPosit(t, f[0], f[1], k)
			ref := refFor(p)
			var xs []float64
			for c := uint64(1); c <= ref.maxCode(); c++ {
				vs := []float64{ref.val[c]}
				if c < ref.maxCode() {
					vs = append(vs, ref.tie[c])
				}
				for _, v := range vs {
					xs = append(xs, v, -v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)))
				}
			}
			mp := ref.val[ref.maxCode()]
			xs = append(xs, mp*3, ref.val[1]/3, math.MaxFloat64, 5e-324, math.Inf(-1), math.NaN(), 0)
			errs := 0
			for _, x := range xs {
				wc := uint32(ref.encode(x))
				if got := p.Encode64(x); got != wc && errs < 10 {
					t.Errorf("%v.Encode64(%g) = %#x, want %#x", p, x, got, wc)
					errs++
				}
				if got, want := p.Round64(x), ref.round64(x); !sameFloat64(got, want) && errs < 10 {
					t.Errorf("%v.Round64(%g) = %g, want %g", p, x, got, want)
					errs++
				}
			}
		}
	}
}

// TestPositWide checks posits wider than 16 bits, above all posit(32,2),
// on random codes and on their tie points, against the reference (which
// binary-searches the codes, decoding each from the definition).
func TestPositWide(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	samples := 3000
	if testing.Short() {
		samples = 500
	}
	kernels := positKernels()
	for _, f := range [][3]int{{32, 2, 0}, {32, 2, 9}, {32, 0, 0}, {32, 4, 0}, {24, 1, 0}, {20, 3, -4}, {17, 2, 0}} {
		p := mustPosit(t, f[0], f[1], f[2])
		ref := newRefFormat(f[0], f[1], f[2])
		mc := ref.maxCode()
		errs := 0
		report := func(format string, args ...any) {
			if errs < 10 {
				t.Errorf("%v: "+format, append([]any{p}, args...)...)
			}
			errs++
		}
		var xs []float32
		for i := range samples {
			// Half the codes near the ends, where the regime is long.
			c := 1 + rng.Uint64N(mc)
			if i%2 == 1 {
				c = 1 + rng.Uint64N(64)
				if i%4 == 1 {
					c = mc - c + 1
				}
			}
			v := ref.value(c)
			if got := p.Decode(uint32(c)); got != v {
				report("Decode(%#x) = %g, want %g", c, got, v)
			}
			if got := p.Encode64(v); got != uint32(c) {
				report("Encode64(Decode(%#x)) = %#x", c, got)
			}
			if got := p.Encode64(-v); got != uint32(-c&(1<<f[0]-1)) {
				report("Encode64(-Decode(%#x)) = %#x", c, got)
			}
			if c == mc {
				continue
			}
			tie := ref.tieValue(c)
			for _, x := range []float64{tie, math.Nextafter(tie, 0), math.Nextafter(tie, 2*tie), -tie} {
				if got, want := p.Encode64(x), uint32(ref.encode(x)); got != want {
					report("Encode64(%g) = %#x, want %#x", x, got, want)
				}
				if x32 := float32(x); float64(x32) == x {
					xs = append(xs, x32, math.Nextafter32(x32, 0), math.Nextafter32(x32, 2*x32))
				}
			}
			xs = append(xs, math.Float32frombits(rng.Uint32()))
		}
		want := make([]float32, len(xs))
		for i, x := range xs {
			want[i] = ref.round32(x)
			if got, wc := p.Encode(x), uint32(ref.encode(float64(x))); got != wc {
				report("Encode(%g) = %#x, want %#x", x, got, wc)
			}
			if got := p.Round(x); !sameFloat32(got, want[i]) {
				report("Round(%g) = %g, want %g", x, got, want[i])
			}
		}
		checkKernels(t, p, kernels, xs, want)
	}
}

// TestPositKernelsSlices checks the kernels on slices of every length up
// to 70 and on long slices, with skipped elements placed at vector and
// chunk boundaries, against Round.
func TestPositKernelsSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	kernels := positKernels()
	for _, p := range []Posit{mustPosit(t, 8, 1, 0), mustPosit(t, 6, 1, 2), mustPosit(t, 16, 2, 0), mustPosit(t, 32, 2, 0)} {
		var lens []int
		for n := range 71 {
			lens = append(lens, n)
		}
		lens = append(lens, 1023, 1024, 1025, 4099)
		for _, n := range lens {
			xs := make([]float32, n)
			for i := range xs {
				switch rng.IntN(4) {
				case 0:
					xs[i] = math.Float32frombits(rng.Uint32())
				case 1:
					xs[i] = float32(rng.NormFloat64() * 1e-4)
				default:
					xs[i] = float32(rng.NormFloat64())
				}
			}
			if n > 0 {
				xs[n-1] = 1e-30 // slow path at the end
			}
			want := make([]float32, n)
			for i, x := range xs {
				want[i] = p.Round(x)
			}
			checkKernels(t, p, kernels, xs, want)
		}
	}
}

func TestPositStochastic(t *testing.T) {
	const draws = 4000
	tests := []struct {
		n, es, k int
		xs       []float64
	}{
		{8, 1, 0, []float64{0.3, -0.3, 1.1, 1, 3000, -1500, 0x1p-11, 5000, 1e-20, -1e-20, 0.7e-3}},
		{8, 0, 0, []float64{1.01, 40, 0.02, -0.016}},
		{8, 2, 0, []float64{0x1p-22, 3e6, 1e-6}},
		{6, 1, 0, []float64{0.1, 0.01, 100}},
		{8, 1, 3, []float64{0.3, 300}},
		{16, 1, 0, []float64{1.00001, -0.123456, 1e8, 3e-9}},
		{16, 4, 0, []float64{1e30, 1e-30, 0.1}},
		{32, 2, 0, []float64{1.5e-35, 1.0e35, 0.1, 1e-40}},
	}
	rng := rand.NewPCG(7, 8)
	for _, tt := range tests {
		p := mustPosit(t, tt.n, tt.es, tt.k)
		ref := newRefFormat(tt.n, tt.es, tt.k)
		src := make([]float32, draws)
		dst := make([]float32, draws)
		for _, x64 := range tt.xs {
			x := float32(x64)
			xf := float64(x)
			for i := range src {
				src[i] = x
			}
			p.RoundSliceStochastic(dst, src, rng)
			lo, hi := ref.bracket(math.Abs(xf))
			switch {
			case lo == 0: // below minpos: minpos
				lo = hi
			case math.IsInf(hi, 1): // beyond maxpos: maxpos
				hi = lo
			}
			if xf < 0 {
				lo, hi = -hi, -lo
			}
			up := 0
			sum := 0.0
			for _, y := range dst {
				switch float64(y) {
				case hi:
					up++
				case lo:
				default:
					t.Fatalf("%v: stochastic rounding of %g gave %g, not %g or %g", p, x, y, lo, hi)
				}
				sum += float64(y) - xf
			}
			if lo == hi {
				continue
			}
			// Binomial count of upper outcomes: within 5 standard deviations.
			pr := (xf - lo) / (hi - lo)
			sd := math.Sqrt(draws * pr * (1 - pr))
			if math.Abs(float64(up)-draws*pr) > 5*sd+1 {
				t.Errorf("%v: %g rounded up %d of %d times, want %.1f ± %.1f", p, x, up, draws, draws*pr, 5*sd)
			}
			// The mean error converges to 0: it is (up/draws - pr)·(hi-lo).
			if me := sum / draws; math.Abs(me) > (5*sd+1)/draws*(hi-lo) {
				t.Errorf("%v: mean error of %g is %g, spacing %g", p, x, me, hi-lo)
			}
		}
	}
}

func TestPositStochasticSpecials(t *testing.T) {
	p := mustPosit(t, 8, 1, 0)
	inf := float32(math.Inf(1))
	src := []float32{0, float32(math.Copysign(0, -1)), inf, -inf, float32(math.NaN()), 1, -4096, 1e30, -1e-30}
	want := []float32{0, 0, float32(math.NaN()), float32(math.NaN()), float32(math.NaN()), 1, -4096, 4096, -1.0 / 4096}
	dst := make([]float32, len(src))
	for range 50 {
		p.RoundSliceStochastic(dst, src, rand.NewPCG(rand.Uint64(), 1))
		for i := range src {
			if !sameFloat32(dst[i], want[i]) {
				t.Fatalf("%v: stochastic rounding of %g gave %g, want %g", p, src[i], dst[i], want[i])
			}
		}
	}
}

func TestPositStochasticReproducible(t *testing.T) {
	p := mustPosit(t, 8, 1, 0)
	rng := rand.New(rand.NewPCG(9, 10))
	src := make([]float32, 1001)
	for i := range src {
		src[i] = float32(rng.NormFloat64())
	}
	a, b, c := make([]float32, len(src)), make([]float32, len(src)), make([]float32, len(src))
	p.RoundSliceStochastic(a, src, rand.NewPCG(1, 1))
	p.RoundSliceStochastic(b, src, rand.NewPCG(1, 1))
	p.RoundSliceStochastic(c, src, rand.NewPCG(1, 2))
	same := 0
	for i := range src {
		if a[i] != b[i] {
			t.Fatalf("same seed, element %d: %g and %g", i, a[i], b[i])
		}
		if a[i] == c[i] {
			same++
		}
	}
	if same == len(src) {
		t.Errorf("different seeds gave the same %d results", len(src))
	}
	// The mean error over a whole tensor is near 0, unlike nearest
	// rounding's bias on a skewed tensor.
	for i := range src {
		src[i] = float32(math.Abs(rng.NormFloat64()))*0.3 + 0.01
	}
	big := make([]float32, 200000)
	for i := range big {
		big[i] = src[i%len(src)]
	}
	out := make([]float32, len(big))
	p.RoundSliceStochastic(out, big, rand.NewPCG(3, 3))
	var sum, sumAbs float64
	for i := range big {
		sum += float64(out[i]) - float64(big[i])
		sumAbs += math.Abs(float64(out[i]) - float64(big[i]))
	}
	if me, ma := sum/float64(len(big)), sumAbs/float64(len(big)); math.Abs(me) > ma/50 {
		t.Errorf("stochastic mean error %g, mean absolute error %g", me, ma)
	}
}

func TestPositSliceLengthPanics(t *testing.T) {
	p := mustPosit(t, 8, 1, 0)
	for name, f := range map[string]func(){
		"RoundSlice":           func() { p.RoundSlice(make([]float32, 2), make([]float32, 3)) },
		"RoundSliceStochastic": func() { p.RoundSliceStochastic(make([]float32, 3), make([]float32, 2), rand.NewPCG(1, 1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with unequal lengths did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestPositParseAndScale(t *testing.T) {
	for _, name := range []string{"posit(8,1)", "posit(2,0)", "posit(32,2)", "posit(16,4,scale=-3)", "posit(8,1,scale=3)"} {
		f, err := Parse(name)
		if err != nil {
			t.Errorf("Parse(%q): %v", name, err)
			continue
		}
		if f.String() != name {
			t.Errorf("Parse(%q).String() = %q", name, f.String())
		}
		if g, _ := Parse(f.String()); g != f {
			t.Errorf("Parse(%q) != Parse(String())", name)
		}
	}
	if f, g := MustParse("posit8_1"), MustParse("posit( 8 , 1 )"); f != g {
		t.Errorf("posit8_1 = %v, posit( 8 , 1 ) = %v", f, g)
	}
	for _, name := range []string{"posit(1,0)", "posit(33,2)", "posit(8,5)", "posit(8,-1)", "posit(8)", "posit(8,1,scale=x)",
		"posit(8,1,bias=2)", "posit(8,0,scale=1017)", "posit(32,4,scale=543)", "posit(32,4,scale=-543)"} {
		if _, err := Parse(name); err == nil {
			t.Errorf("Parse(%q) succeeded", name)
		}
	}
	// The largest biases keep every value a normal float64.
	for _, name := range []string{"posit(8,0,scale=1000)", "posit(32,4,scale=542)", "posit(32,4,scale=-542)"} {
		f, err := Parse(name)
		if err != nil {
			t.Errorf("Parse(%q): %v", name, err)
			continue
		}
		p := f.(Posit)
		if p.MinPos() < 0x1p-1022 || math.IsInf(p.MaxPos(), 0) {
			t.Errorf("%v spans [%g, %g]", p, p.MinPos(), p.MaxPos())
		}
	}
	p := mustPosit(t, 8, 1, 0)
	q, err := Scale(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := Scale(q, -3)
	if r != p {
		t.Errorf("Scale(Scale(p, 3), -3) = %v, want %v", r, p)
	}
	if q != MustParse("posit(8,1,scale=3)") {
		t.Errorf("Scale(posit(8,1), 3) = %v", q)
	}
}

// TestPositSliceLayout checks the offsets posit_kernel_amd64.s reads the
// kernel constants at.
func TestPositSliceLayout(t *testing.T) {
	var c positSlice
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"sOff", unsafe.Offsetof(c.sOff), 0}, {"es", unsafe.Offsetof(c.es), 4},
		{"c1", unsafe.Offsetof(c.c1), 8}, {"c2", unsafe.Offsetof(c.c2), 12},
		{"dMax", unsafe.Offsetof(c.dMax), 16}, {"off", unsafe.Offsetof(c.off), 20},
		{"lo", unsafe.Offsetof(c.lo), 24}, {"loTie", unsafe.Offsetof(c.loTie), 28},
		{"hi", unsafe.Offsetof(c.hi), 32}, {"hiTie", unsafe.Offsetof(c.hiTie), 36},
		{"minB", unsafe.Offsetof(c.minB), 40}, {"lowB", unsafe.Offsetof(c.lowB), 44},
		{"highB", unsafe.Offsetof(c.highB), 48}, {"maxB", unsafe.Offsetof(c.maxB), 52},
		{"fastLo", unsafe.Offsetof(c.fastLo), 56}, {"fastSpan", unsafe.Offsetof(c.fastSpan), 60},
	} {
		if f.got != f.want {
			t.Errorf("positSlice.%s at offset %d, the assembly reads it at %d", f.name, f.got, f.want)
		}
	}
}

// TestPositStochasticKernels checks that every stochastic kernel gives the
// portable kernel's results bit for bit from the same seed (which
// TestPositStochastic checks against the reference), on inputs of every
// kind, in place and not, at lengths around the vector width and chunk.
func TestPositStochasticKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	kernels := positStochKernels()
	for _, p := range []Posit{mustPosit(t, 8, 1, 0), mustPosit(t, 6, 0, 0), mustPosit(t, 8, 3, -4),
		mustPosit(t, 16, 2, 0), mustPosit(t, 16, 4, 100), mustPosit(t, 32, 2, 0), mustPosit(t, 2, 1, 0)} {
		for _, n := range []int{0, 1, 15, 16, 17, 33, 1023, 1024, 1025, 5000} {
			xs := make([]float32, n)
			for i := range xs {
				switch rng.IntN(4) {
				case 0:
					xs[i] = math.Float32frombits(rng.Uint32())
				case 1:
					xs[i] = float32(math.Exp2(rng.Float64()*80-40)) * float32(1-2*rng.IntN(2))
				default:
					xs[i] = float32(rng.NormFloat64())
				}
			}
			want := make([]float32, n)
			roundPositStochGo(want, xs, p, rand.NewPCG(uint64(n), 1))
			got := make([]float32, n)
			for _, kern := range kernels {
				for _, inPlace := range []bool{false, true} {
					src := xs
					if inPlace {
						copy(got, xs)
						src = got
					}
					kern.round(got, src, p, rand.NewPCG(uint64(n), 1))
					for i := range got {
						if !sameFloat32(got[i], want[i]) {
							t.Fatalf("%v kernel %s (in place %v), n=%d: x = %g: got %g, want %g",
								p, kern.name, inPlace, n, xs[i], got[i], want[i])
						}
					}
				}
			}
		}
	}
}
