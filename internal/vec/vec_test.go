package vec

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// impl is one set of kernels; a nil kernel is one the set lacks.
type impl struct {
	name      string
	adam      func(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32)
	scale     func(dst, x []float32, a float32)
	moments   func(m, v, g []float32, b1, c1, b2, c2 float32)
	apply     func(p, m, v []float32, lr, sc2, eps float32)
	leaky     func(dst, x []float32, alpha float32)
	leakyBack func(dst, dy, x []float32, alpha float32)
	count     func(x []float32, lo uint32) (ge, inf int)
	tanh      func(dst, x []float32)
}

var (
	goImpl       = impl{"go", adamGo, scaleGo, momentsGo, applyGo, leakyGo, leakyBackGo, countGo, tanhGo}
	dispatchImpl = impl{"dispatch", adam, scale, moments, apply, leaky, leakyBack, count, tanh}
)

// The references: the scalar loops the kernels replace, as gan, nn and
// scaling had them on amd64. The conversions float32(x*y) round each
// product before its add, as amd64 does: arm64 would otherwise fuse them
// (seen under qemu-aarch64, issue 30), and the bits would not be amd64's.

func refAdam(p, g, m, v []float32, inv, b1, b2, lr, sc2, eps float32) {
	for j := range p {
		gj := g[j] * inv
		m[j] = float32(b1*m[j]) + float32((1-b1)*gj)
		v[j] = float32(b2*v[j]) + float32((1-b2)*gj*gj)
		p[j] -= lr * m[j] / (float32(math.Sqrt(float64(v[j])))/sc2 + eps)
	}
}

func refScale(dst, g []float32, inv float32) {
	for j, x := range g {
		dst[j] = x * inv
	}
}

func refMoments(m, v, g []float32, b1, b2 float32) {
	for j, gj := range g {
		m[j] = float32(b1*m[j]) + float32((1-b1)*gj)
		v[j] = float32(b2*v[j]) + float32((1-b2)*gj*gj)
	}
}

func refApply(p, m, v []float32, lr, sc2, eps float32) {
	for j := range p {
		p[j] -= lr * m[j] / (float32(math.Sqrt(float64(v[j])))/sc2 + eps)
	}
}

func refLeaky(dst, src []float32, alpha float32) {
	for i, v := range src {
		if v > 0 {
			dst[i] = v
		} else {
			dst[i] = alpha * v
		}
	}
}

func refLeakyBack(dst, dy, x []float32, alpha float32) {
	for i, d := range dy {
		if x[i] > 0 {
			dst[i] = d
		} else {
			dst[i] = alpha * d
		}
	}
}

func refCount(grad []float32, lim float32) (nonFinite, saturated int) {
	for _, g := range grad {
		a := float32(math.Abs(float64(g)))
		switch {
		case a != a || math.IsInf(float64(a), 0):
			nonFinite++
		case a >= lim:
			saturated++
		}
	}
	return nonFinite, saturated
}

func refTanh(dst, src []float32) {
	for i, v := range src {
		dst[i] = float32(math.Tanh(float64(v)))
	}
}

// specials are the values whose results the kernels must get right
// beyond ordinary numbers: zeros, subnormals, extremes, infinities and
// NaNs (quiet, negative, with a payload, signalling).
var specials = []uint32{
	0x00000000, 0x80000000, // ±0
	0x00000001, 0x80000001, 0x007fffff, 0x807fffff, // subnormals
	0x00800000, 0x80800000, // smallest normals
	0x3f800000, 0xbf800000, // ±1
	0x7f7fffff, 0xff7fffff, // ±MaxFloat32
	0x7f800000, 0xff800000, // ±Inf
	0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0xff812345, // NaNs
}

// guard is the bits of the values fill puts past a slice's end, in its
// capacity, for checkGuard.
const guard = 0x7fbadbad

// fill returns n values of one kind, with pad spare values before them
// to vary the alignment, and guard values after them.
func fill(rng *rand.Rand, kind string, n, pad int) []float32 {
	x := make([]float32, pad+n+16)
	for i := range x[pad+n:] {
		x[pad+n+i] = math.Float32frombits(guard)
	}
	x = x[:pad+n]
	for i := range x {
		switch {
		case kind == "bits":
			x[i] = math.Float32frombits(rng.Uint32())
		case kind == "special" && rng.IntN(4) == 0:
			x[i] = math.Float32frombits(specials[rng.IntN(len(specials))])
		case kind == "positive":
			x[i] = float32(math.Abs(rng.NormFloat64()) * 1e-3)
		default:
			x[i] = float32(rng.NormFloat64())
		}
	}
	return x[pad:]
}

// lengths returns the lengths to test: every one up to 70, odd ones to
// 1000, and a few larger ones (the largest two not with -short).
func lengths() []int {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	for n := 71; n <= 1000; n += 34 {
		ns = append(ns, n)
	}
	ns = append(ns, 1001, 4097)
	if !testing.Short() {
		ns = append(ns, 65539, 1<<20+5)
	}
	return ns
}

var kinds = []string{"normal", "special", "bits"}

// sameBits reports the first index where got and want differ in bits.
func sameBits(got, want []float32) (int, bool) {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i, false
		}
	}
	return 0, true
}

// sameBitsOrNaN is sameBits with any two NaNs equal. An operation on two
// NaNs returns its first source's, and which operand that is the compiler
// decides: for m's sum in momentsKernel it chose differently inlined into
// gan's Adam.Step (which momentsAVX2 follows) than in refMoments.
func sameBitsOrNaN(got, want []float32) (int, bool) {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			return i, false
		}
	}
	return 0, true
}

// forCases calls f for every length, offset (0..15 elements, fewer for
// large lengths) and kind, with a fresh random source.
func forCases(t *testing.T, f func(t *testing.T, rng *rand.Rand, n, off int, kind string)) {
	for _, n := range lengths() {
		offs := 16
		if n > 5000 {
			offs = 3
		}
		for off := range offs {
			for _, kind := range kinds {
				rng := rand.New(rand.NewPCG(uint64(n), uint64(off)))
				f(t, rng, n, off, kind)
			}
		}
	}
}

func clone(x []float32) []float32 { return append([]float32(nil), x...) }

// checkGuard fails if a kernel wrote past the end of one of xs.
func checkGuard(t *testing.T, xs ...[]float32) {
	t.Helper()
	for _, x := range xs {
		for i, v := range x[len(x):cap(x)] {
			if math.Float32bits(v) != guard {
				t.Fatalf("wrote %#x past the end of %d values, at +%d", math.Float32bits(v), len(x), i)
			}
		}
	}
}

type adamParams struct{ inv, b1, b2, lr, sc2, eps float32 }

var adamCases = []adamParams{
	{1.0 / 1024, 0.5, 0.999, 2e-4 / 0.5, float32(math.Sqrt(0.001)), 1e-8},
	{1, 0.9, 0.999, 1e-3, 1, 1e-8},
	{3, 0.1, 0.5, 0.7, 1e-30, 0},
	{float32(math.Inf(1)), 0.5, 0.999, 1, 0, 1e-8},
	{0, 0, 1, float32(math.NaN()), 1, 1},
}

func TestAdam(t *testing.T) {
	for _, im := range impls() {
		if im.adam == nil {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				c := adamCases[rng.IntN(len(adamCases))]
				p, g := fill(rng, kind, n, off), fill(rng, kind, n, (off+5)%16)
				m, v := fill(rng, kind, n, (off+9)%16), fill(rng, kind, n, (off+14)%16)
				if kind == "normal" {
					v = fill(rng, "positive", n, (off+14)%16)
				}
				wp, wm, wv := clone(p), clone(m), clone(v)
				refAdam(wp, g, wm, wv, c.inv, c.b1, c.b2, c.lr, c.sc2, c.eps)
				im.adam(p, g, m, v, c.inv, c.b1, 1-c.b1, c.b2, 1-c.b2, c.lr, c.sc2, c.eps)
				checkGuard(t, p, m, v)
				for _, r := range []struct {
					name      string
					got, want []float32
				}{{"p", p, wp}, {"m", m, wm}, {"v", v, wv}} {
					if i, ok := sameBits(r.got, r.want); !ok {
						t.Fatalf("n %d off %d %s %+v: %s[%d] = %#x, want %#x (g %#x)", n, off, kind, c, r.name, i,
							math.Float32bits(r.got[i]), math.Float32bits(r.want[i]), math.Float32bits(g[i]))
					}
				}
			})
		})
	}
}

func TestAdamPasses(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				c := adamCases[rng.IntN(len(adamCases))]
				p, g := fill(rng, kind, n, off), fill(rng, kind, n, (off+3)%16)
				m, v := fill(rng, kind, n, (off+7)%16), fill(rng, kind, n, (off+12)%16)
				dst := fill(rng, kind, n, (off+1)%16)
				if im.scale != nil {
					want := clone(dst)
					refScale(want, g, c.inv)
					im.scale(dst, g, c.inv)
					checkGuard(t, dst)
					if i, ok := sameBits(dst, want); !ok {
						t.Fatalf("scale n %d off %d %s: [%d] = %#x, want %#x", n, off, kind, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
					}
				}
				if im.moments != nil {
					wm, wv := clone(m), clone(v)
					refMoments(wm, wv, g, c.b1, c.b2)
					im.moments(m, v, g, c.b1, 1-c.b1, c.b2, 1-c.b2)
					checkGuard(t, m, v)
					if i, ok := sameBitsOrNaN(m, wm); !ok {
						t.Fatalf("moments n %d off %d %s: m[%d] = %#x, want %#x", n, off, kind, i, math.Float32bits(m[i]), math.Float32bits(wm[i]))
					}
					if i, ok := sameBits(v, wv); !ok {
						t.Fatalf("moments n %d off %d %s: v[%d] = %#x, want %#x", n, off, kind, i, math.Float32bits(v[i]), math.Float32bits(wv[i]))
					}
				}
				if im.apply != nil {
					want := clone(p)
					refApply(want, m, v, c.lr, c.sc2, c.eps)
					im.apply(p, m, v, c.lr, c.sc2, c.eps)
					checkGuard(t, p)
					if i, ok := sameBits(p, want); !ok {
						t.Fatalf("apply n %d off %d %s: [%d] = %#x, want %#x", n, off, kind, i, math.Float32bits(p[i]), math.Float32bits(want[i]))
					}
				}
			})
		})
	}
}

var alphas = []float32{0, 0.2, 0.01, 1, -0.5, float32(math.Inf(1))}

func TestLeakyReLU(t *testing.T) {
	for _, im := range impls() {
		if im.leaky == nil {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				alpha := alphas[rng.IntN(len(alphas))]
				x, dy := fill(rng, kind, n, off), fill(rng, kind, n, (off+6)%16)
				dst := fill(rng, kind, n, (off+11)%16)
				want := clone(dst)
				refLeaky(want, x, alpha)
				im.leaky(dst, x, alpha)
				checkGuard(t, dst)
				if i, ok := sameBits(dst, want); !ok {
					t.Fatalf("n %d off %d %s alpha %g: [%d] = %#x, want %#x (x %#x)", n, off, kind, alpha, i,
						math.Float32bits(dst[i]), math.Float32bits(want[i]), math.Float32bits(x[i]))
				}
				refLeakyBack(want, dy, x, alpha)
				im.leakyBack(dst, dy, x, alpha)
				checkGuard(t, dst)
				if i, ok := sameBits(dst, want); !ok {
					t.Fatalf("back n %d off %d %s alpha %g: [%d] = %#x, want %#x (x %#x dy %#x)", n, off, kind, alpha, i,
						math.Float32bits(dst[i]), math.Float32bits(want[i]), math.Float32bits(x[i]), math.Float32bits(dy[i]))
				}
			})
		})
	}
}

// TestLeakyReLUSpecials tries every pair of special values as x and dy.
func TestLeakyReLUSpecials(t *testing.T) {
	var x, dy []float32
	for _, a := range specials {
		for _, b := range specials {
			x = append(x, math.Float32frombits(a))
			dy = append(dy, math.Float32frombits(b))
		}
	}
	for _, im := range impls() {
		if im.leaky == nil {
			continue
		}
		for _, alpha := range alphas {
			got, want := make([]float32, len(x)), make([]float32, len(x))
			refLeaky(want, x, alpha)
			im.leaky(got, x, alpha)
			if i, ok := sameBits(got, want); !ok {
				t.Errorf("%s alpha %g: leaky(%#x) = %#x, want %#x", im.name, alpha, math.Float32bits(x[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
			refLeakyBack(want, dy, x, alpha)
			im.leakyBack(got, dy, x, alpha)
			if i, ok := sameBits(got, want); !ok {
				t.Errorf("%s alpha %g: leakyBack(dy %#x, x %#x) = %#x, want %#x", im.name, alpha,
					math.Float32bits(dy[i]), math.Float32bits(x[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	}
}

var limits = []float32{
	0, float32(math.Copysign(0, -1)), -1, float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.NaN()),
	1, 2, 448, 57344, 65504, math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-40,
}

func TestCountLimit(t *testing.T) {
	for _, im := range impls() {
		if im.count == nil {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				x := fill(rng, kind, n, off)
				lims := limits
				if n > 0 {
					lims = append(lims[:len(lims):len(lims)], float32(math.Abs(float64(x[rng.IntN(n)]))))
				}
				for _, lim := range lims {
					wantInf, wantSat := refCount(x, lim)
					ge, inf := im.count(x, limitBits(lim))
					if inf != wantInf || ge-inf != wantSat {
						t.Fatalf("n %d off %d %s limit %g: %d non-finite, %d saturated; want %d, %d", n, off, kind, lim, inf, ge-inf, wantInf, wantSat)
					}
				}
			})
		})
	}
}

func TestTanh(t *testing.T) {
	for _, im := range impls() {
		if im.tanh == nil {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				x := fill(rng, kind, n, off)
				if kind == "normal" && n%2 == 1 {
					// Around the branches at 0.625 and MAXLOG/2 ≈ 44.
					for i := range x {
						x[i] *= float32(rng.IntN(50))
					}
				}
				dst := fill(rng, kind, n, (off+9)%16)
				want := clone(dst)
				refTanh(want, x)
				im.tanh(dst, x)
				checkGuard(t, dst)
				if i, ok := sameBits(dst, want); !ok {
					t.Fatalf("n %d off %d %s: tanh(%#x) = %#x, want %#x", n, off, kind,
						math.Float32bits(x[i]), math.Float32bits(dst[i]), math.Float32bits(want[i]))
				}
			})
		})
	}
}

var exhaustive = flag.Bool("exhaustive", false, "test Tanh on every float32, not one in 251")

// TestTanhAll compares Tanh with math.Tanh on every float32 bit pattern
// (with -exhaustive; a minute a kernel) or a stride of them, the first
// near each branch boundary included.
func TestTanhAll(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	step := uint64(251)
	if *exhaustive {
		step = 1
	}
	const chunk = 1 << 16
	x, got, want := make([]float32, 0, chunk), make([]float32, chunk), make([]float32, chunk)
	for _, im := range impls() {
		if im.tanh == nil || im.name == "go" {
			continue
		}
		check := func() {
			refTanh(want[:len(x)], x)
			im.tanh(got[:len(x)], x)
			if i, ok := sameBits(got[:len(x)], want[:len(x)]); !ok {
				t.Fatalf("%s: tanh(%#x) = %#x, want %#x", im.name, math.Float32bits(x[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
			x = x[:0]
		}
		// Every float32 within 4096 ulps of the branch boundaries.
		for _, b := range []float32{0.625, 44.014845965556525, 0, float32(math.Inf(1))} {
			for _, sign := range []float32{1, -1} {
				c := math.Float32bits(b * sign)
				for d := uint32(0); d < 8192; d++ {
					x = append(x, math.Float32frombits(c+d-4096))
				}
				check()
			}
		}
		for b := uint64(0); b < 1<<32; b += step {
			x = append(x, math.Float32frombits(uint32(b)))
			if len(x) == chunk {
				check()
			}
		}
		check()
	}
}

// TestExported checks the exported functions' lengths: the first slice's
// length is the count, longer others are fine, shorter ones panic.
func TestExported(t *testing.T) {
	long := []float32{-1, 2, -3, 4, float32(math.Inf(1)), 6, -7, 8, 9, 10}
	p, m, v := []float32{1, 1, 1}, make([]float32, 3), make([]float32, 3)
	Adam(p, long, m, v, 1, 0.5, 0.999, 0.1, 1, 1e-8)
	wp, wm, wv := []float32{1, 1, 1}, make([]float32, 3), make([]float32, 3)
	refAdam(wp, long, wm, wv, 1, 0.5, 0.999, 0.1, 1, 1e-8)
	if fmt.Sprint(p, m, v) != fmt.Sprint(wp, wm, wv) {
		t.Errorf("Adam: %v %v %v, want %v %v %v", p, m, v, wp, wm, wv)
	}
	dst := make([]float32, 4)
	LeakyReLU(dst, long, 0.5)
	if want := []float32{-0.5, 2, -1.5, 4}; fmt.Sprint(dst) != fmt.Sprint(want) {
		t.Errorf("LeakyReLU: %v, want %v", dst, want)
	}
	if nf, sat := CountLimit(long, 8); nf != 1 || sat != 3 {
		t.Errorf("CountLimit: %d, %d; want 1, 3", nf, sat)
	}
	for name, f := range map[string]func(){
		"Adam":          func() { Adam(make([]float32, 4), long, m, v, 1, 0.5, 0.999, 0.1, 1, 1e-8) },
		"Scale":         func() { Scale(make([]float32, 11), long, 1) },
		"AdamMoments":   func() { AdamMoments(long, m, v, 0.5, 0.999) },
		"AdamApply":     func() { AdamApply(long, m, v, 1, 1, 1) },
		"LeakyReLU":     func() { LeakyReLU(make([]float32, 11), long, 1) },
		"LeakyReLUBack": func() { LeakyReLUBack(long, m, long, 1) },
		"Tanh":          func() { Tanh(make([]float32, 11), long) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with a short slice did not panic", name)
				}
			}()
			f()
		}()
	}
}

// benchSizes are the lengths benchmarked: a tensor in L1, in L2, and
// one of a CGAN's weight matrices (1.4 M values, 5.6 MB a slice).
var benchSizes = []int{2048, 32768, 1 << 20}

// benchImpls adds the scalar references, as the kernels' baseline.
func benchImpls() []impl {
	ref := impl{
		name: "scalar",
		adam: func(p, g, m, v []float32, inv, b1, _, b2, _, lr, sc2, eps float32) {
			refAdam(p, g, m, v, inv, b1, b2, lr, sc2, eps)
		},
		apply:     refApply,
		leaky:     refLeaky,
		leakyBack: refLeakyBack,
		count: func(x []float32, lo uint32) (int, int) {
			inf, sat := refCount(x, math.Float32frombits(lo))
			return inf + sat, inf
		},
		tanh: refTanh,
	}
	return append([]impl{ref}, impls()...)
}

// bench runs each implementation of a kernel on slices of random
// normal values (random signs: no branch predictor learns them), or
// small positive ones for the one at index v (Adam's second moment; -1
// for none).
func bench(b *testing.B, slices, v int, run func(im impl, x [][]float32) bool) {
	for _, n := range benchSizes {
		for _, im := range benchImpls() {
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([][]float32, slices)
			for i := range x {
				kind := "normal"
				if i == v {
					kind = "positive"
				}
				x[i] = fill(rng, kind, n, 0)
			}
			if !run(im, nil) {
				continue
			}
			b.Run(fmt.Sprintf("%d/%s", n, im.name), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(4 * n * slices))
				for b.Loop() {
					run(im, x)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
			})
		}
	}
}

func BenchmarkAdam(b *testing.B) {
	bench(b, 4, 3, func(im impl, x [][]float32) bool {
		if im.adam != nil && x != nil {
			// The moments stay finite: β1 + (1-β1) = 1, and g is scaled down.
			im.adam(x[0], x[1], x[2], x[3], 1e-3, 0.5, 0.5, 0.999, 0.001, 1e-9, 0.03, 1e-8)
		}
		return im.adam != nil
	})
}

func BenchmarkAdamApply(b *testing.B) {
	bench(b, 3, 2, func(im impl, x [][]float32) bool {
		if im.apply != nil && x != nil {
			im.apply(x[0], x[1], x[2], 1e-9, 0.03, 1e-8)
		}
		return im.apply != nil
	})
}

func BenchmarkLeakyReLU(b *testing.B) {
	bench(b, 2, -1, func(im impl, x [][]float32) bool {
		if im.leaky != nil && x != nil {
			im.leaky(x[0], x[1], 0.2)
		}
		return im.leaky != nil
	})
}

func BenchmarkLeakyReLUBack(b *testing.B) {
	bench(b, 3, -1, func(im impl, x [][]float32) bool {
		if im.leakyBack != nil && x != nil {
			im.leakyBack(x[0], x[1], x[2], 0.2)
		}
		return im.leakyBack != nil
	})
}

func BenchmarkTanh(b *testing.B) {
	bench(b, 2, -1, func(im impl, x [][]float32) bool {
		if im.tanh != nil && x != nil {
			im.tanh(x[0], x[1])
		}
		return im.tanh != nil
	})
}

func BenchmarkCountLimit(b *testing.B) {
	bench(b, 1, -1, func(im impl, x [][]float32) bool {
		if im.count != nil && x != nil {
			im.count(x[0], limitBits(448))
		}
		return im.count != nil
	})
}
