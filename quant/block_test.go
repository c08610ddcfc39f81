package quant

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

var mxNames = []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1", "mxint8"}

// blockRef converts one block by a reference: its scale code, element
// codes and values (float64; float32 as Round gives them).
type blockRef func(vs []float64) (scale uint8, codes []uint32, vals []float64, vals32 []float32)

func mxRef(r *refMX) blockRef {
	return func(vs []float64) (uint8, []uint32, []float64, []float32) {
		s, c, v := r.convert(vs)
		v32 := make([]float32, len(v))
		for i, x := range v {
			v32[i] = float32(x) // exact: MX values are float32s
			if !math.IsNaN(x) && float64(v32[i]) != x {
				panic("MX value not a float32")
			}
		}
		return s, c, v, v32
	}
}

func positRef(r *refBlockPosit) blockRef {
	return func(vs []float64) (uint8, []uint32, []float64, []float32) {
		k := r.bias(vs)
		f := r.format(k)
		codes := make([]uint32, len(vs))
		v := make([]float64, len(vs))
		v32 := make([]float32, len(vs))
		for i, x := range vs {
			codes[i] = uint32(f.encode(x))
			v[i] = f.round64(x)
			v32[i] = f.round32(float32(x))
		}
		return uint8(int8(k)), codes, v, v32
	}
}

func same32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func same64(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}

// checkBlocks checks every path of b on src against the reference.
func checkBlocks(t *testing.T, b BlockFormat, src []float32, ref blockRef) {
	t.Helper()
	K, n := b.Block(), len(src)
	neg := make([]float32, n)
	for i, x := range src {
		neg[i] = -x
	}
	wantCodes := make([]uint32, n)
	wantScales := make([]uint8, b.NumBlocks(n))
	want64 := make([]float64, n)
	want32, wantNeg32 := make([]float32, n), make([]float32, n)
	for j := range wantScales {
		lo, hi := j*K, min((j+1)*K, n)
		vs, ns := make([]float64, hi-lo), make([]float64, hi-lo)
		for i := range vs {
			vs[i], ns[i] = float64(src[lo+i]), float64(neg[lo+i])
		}
		s, c, v, v32 := ref(vs)
		wantScales[j] = s
		copy(wantCodes[lo:], c)
		copy(want64[lo:], v)
		copy(want32[lo:], v32)
		_, _, _, n32 := ref(ns)
		copy(wantNeg32[lo:], n32)
	}
	codes, scales := make([]uint32, n), make([]uint8, b.NumBlocks(n))
	b.Encode(codes, scales, src)
	errs := 0
	report := func(format string, args ...any) {
		if errs < 10 {
			t.Errorf(format, args...)
		}
		errs++
	}
	for j := range scales {
		if scales[j] != wantScales[j] {
			report("%v: block %d (%v...): scale code %#x, want %#x", b, j, src[j*K:min(j*K+4, n)], scales[j], wantScales[j])
		}
	}
	for i := range codes {
		if codes[i] != wantCodes[i] {
			report("%v: src[%d] = %g: code %#x, want %#x", b, i, src[i], codes[i], wantCodes[i])
		}
	}
	dec := make([]float64, n)
	b.Decode(dec, codes, scales)
	dst := make([]float32, n)
	b.RoundBlocks(dst, src)
	inPlace := append([]float32(nil), src...)
	b.RoundBlocks(inPlace, inPlace)
	s64 := make([]float64, n)
	for i, x := range src {
		s64[i] = float64(x)
	}
	d64 := make([]float64, n)
	b.RoundBlocks64(d64, s64)
	// Two rows (src, -src) along rows; two columns along columns.
	rows := append(append([]float32(nil), src...), neg...)
	b.RoundMatrix(rows, rows, 2, n, AlongRow, Nearest, nil)
	cols := make([]float32, 2*n)
	for i := range src {
		cols[2*i], cols[2*i+1] = src[i], neg[i]
	}
	b.RoundMatrix(cols, cols, n, 2, AlongColumn, Nearest, nil)
	cols64 := make([]float64, 2*n)
	for i := range src {
		cols64[2*i], cols64[2*i+1] = float64(src[i]), float64(neg[i])
	}
	b.RoundMatrix64(cols64, cols64, n, 2, AlongColumn)
	for i := range src {
		w := want32[i]
		switch {
		case !same32(dst[i], w):
			report("%v: RoundBlocks: src[%d] = %g (block %d) gives %g, want %g", b, i, src[i], i/K, dst[i], w)
		case !same32(inPlace[i], w):
			report("%v: RoundBlocks in place: src[%d] = %g gives %g, want %g", b, i, src[i], inPlace[i], w)
		case !same64(d64[i], want64[i]):
			report("%v: RoundBlocks64: src[%d] = %g gives %g, want %g", b, i, src[i], d64[i], want64[i])
		case !same64(dec[i], want64[i]):
			report("%v: Decode(Encode): src[%d] = %g gives %g, want %g", b, i, src[i], dec[i], want64[i])
		case !same32(rows[i], w) || !same32(rows[n+i], wantNeg32[i]):
			report("%v: RoundMatrix along rows: src[%d] = %g gives %g, %g; want %g, %g", b, i, src[i], rows[i], rows[n+i], w, wantNeg32[i])
		case !same32(cols[2*i], w) || !same32(cols[2*i+1], wantNeg32[i]):
			report("%v: RoundMatrix along columns: src[%d] = %g gives %g, %g; want %g, %g", b, i, src[i], cols[2*i], cols[2*i+1], w, wantNeg32[i])
		case !same64(cols64[2*i], want64[i]):
			report("%v: RoundMatrix64 along columns: src[%d] = %g gives %g, want %g", b, i, src[i], cols64[2*i], want64[i])
		}
	}
	if errs > 10 {
		t.Errorf("%v: %d more errors", b, errs-10)
	}
}

// f32 returns v as a float32 and whether it is one exactly.
func f32(v *big.Rat) (float32, bool) {
	f, exact := v.Float32()
	return f, exact && !math.IsInf(float64(f), 0)
}

// mxProbes returns the inputs that exercise every element code, every tie
// and the E8M0 edges, in blocks of 32 whose first value sets the scale.
func mxProbes(r *refMX, rng *rand.Rand) []float32 {
	var out []float32
	add := func(block []float32) {
		for len(block) < 32 {
			block = append(block, 0)
		}
		out = append(out, block[:32]...)
	}
	// Every element code and every midpoint, ±1 ulp, both signs, at scales
	// from below E8M0's range (clamped) to the top of float32's.
	for _, s := range []int{-160, -140, -130, -128, -127, -126, -100, -20, -1, 0, 1, 9, 60, 100, 127 - r.emax} {
		anchor, ok := f32(new(big.Rat).Mul(r.max, refPow2(s)))
		if !ok {
			anchor = float32(math.Ldexp(1, s+r.emax))
		}
		var xs []float32
		for i, v := range r.vals {
			cands := []*big.Rat{v}
			if i+1 < len(r.vals) {
				mid := new(big.Rat).Add(v, r.vals[i+1])
				cands = append(cands, mid.Mul(mid, big.NewRat(1, 2)))
			} else {
				cands = append(cands, new(big.Rat).Mul(v, big.NewRat(9, 8)), new(big.Rat).Mul(v, big.NewRat(17, 16)))
			}
			for _, c := range cands {
				x, ok := f32(new(big.Rat).Mul(c, refPow2(s)))
				if !ok || x == 0 {
					continue
				}
				xs = append(xs, x, -x, math.Nextafter32(x, 0), math.Nextafter32(x, 1e38), -math.Nextafter32(x, 0))
			}
		}
		for len(xs) > 0 {
			n := min(31, len(xs))
			add(append([]float32{anchor}, xs[:n]...))
			xs = xs[n:]
		}
	}
	// E8M0 edges: the largest magnitude in every binade of float32.
	for e := -149; e <= 127; e++ {
		a := float32(math.Ldexp(1+rng.Float64(), e))
		if e < -126 || math.IsInf(float64(a), 0) {
			a = float32(math.Ldexp(1, e))
		}
		blk := []float32{a, -a, a / 3, a / 1024, a * 0x1p-20, float32(math.Ldexp(1, e-r.emax-1)), math.SmallestNonzeroFloat32}
		add(blk)
	}
	// Zero blocks, signed zeros, float32 subnormals.
	add(nil)
	add([]float32{float32(math.Copysign(0, -1)), 0, float32(math.Copysign(0, -1))})
	add([]float32{0x1p-149, -0x1p-140, 0x1p-130, 0x1.fffffcp-127})
	// NaN blocks.
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	add([]float32{1, nan, 3})
	add([]float32{inf, 0.5})
	add([]float32{-0.25, -inf})
	add([]float32{nan})
	// Random blocks: Gaussian at random scales, and random bit patterns.
	for range 300 {
		blk := make([]float32, 32)
		sc := math.Ldexp(1, rng.IntN(80)-40)
		for i := range blk {
			blk[i] = float32(rng.NormFloat64() * sc)
		}
		add(blk)
		for i := range blk {
			blk[i] = math.Float32frombits(rng.Uint32() & 0xff7fffff) // finite
		}
		add(blk)
	}
	return out
}

func TestMXVsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	for _, name := range mxNames {
		r := newRefMX(name)
		src := mxProbes(r, rng)
		for _, k := range []int{32, 16, 1, 3, 45} {
			b, err := NewMX(MustParseBlock(name).Elem(), k)
			if err != nil {
				t.Fatal(err)
			}
			s := src
			if k != 32 {
				// Every code at one scale, the edges and some random blocks,
				// with a short last block.
				s = append(append([]float32(nil), src[:2000]...), src[len(src)-3000:len(src)-7]...)
			}
			checkBlocks(t, b, s, mxRef(r))
		}
	}
}

func TestBlockPositVsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	for _, name := range []string{"posit(8,1,block=32)", "posit(8,0,block=16)", "posit(8,2,block=32)", "posit(6,1,block=5)", "posit(16,1,block=32)", "posit(16,2,block=8)"} {
		b := MustParseBlock(name)
		p := b.Elem().(Posit)
		r := &refBlockPosit{n: p.N(), es: p.ES()}
		var src []float32
		add := func(blk ...float32) {
			blk = append(blk, make([]float32, b.Block())...)
			src = append(src, blk[:b.Block()]...)
		}
		// Every code and tie of the element at a few biases, behind an anchor
		// that fixes the bias.
		ref0 := newRefFormat(p.N(), p.ES(), 0)
		for _, sh := range []int{-130, -40, 0, 17, 100} {
			var xs []float32
			step := uint64(1)
			if p.N() > 8 {
				step = 97 // a sample of the codes of wide posits
			}
			for c := uint64(1); c <= ref0.maxCode(); c += step {
				for _, v := range []float64{ref0.valueOf(c), ref0.tieValue(min(c, ref0.maxCode()-1))} {
					x := float32(math.Ldexp(v, sh))
					if x != 0 && !math.IsInf(float64(x), 0) && float64(x) == math.Ldexp(v, sh) {
						xs = append(xs, x, -x, math.Nextafter32(x, 0), math.Nextafter32(x, 1e38))
					}
				}
			}
			anchor := float32(math.Ldexp(1.5, sh+positBlockTop(p)))
			for len(xs) > 0 {
				m := min(b.Block()-1, len(xs))
				add(append([]float32{anchor}, xs[:m]...)...)
				xs = xs[m:]
			}
		}
		for e := -149; e <= 127; e++ {
			a := float32(math.Ldexp(1, e))
			add(a, a/3, -a*0x1p-30, math.SmallestNonzeroFloat32, float32(math.Inf(1)))
		}
		add()
		add(float32(math.NaN()), 1, float32(math.Inf(-1)), 1e-40)
		add(float32(math.Copysign(0, -1)), 0)
		for range 200 {
			blk := make([]float32, b.Block())
			sc := math.Ldexp(1, rng.IntN(80)-40)
			for i := range blk {
				blk[i] = float32(rng.NormFloat64() * sc)
			}
			add(blk...)
		}
		checkBlocks(t, b, src[:len(src)-1], positRef(r))
	}
}

// TestMXAnchors checks conversions worked out by hand from the
// specification.
func TestMXAnchors(t *testing.T) {
	for _, c := range []struct {
		name  string
		src   []float32
		scale uint8
		want  []float32
	}{
		// max 1000: floor(log2) = 9, E4M3 emax 8: X = 2; 1000/2 = 500 > 448
		// clamps; 0.3/2 = 0.15 lies between 0.140625 and 0.15625 (step
		// 2^-6 in [2^-3, 2^-2)), nearer 0.15625.
		{"mxfp8-e4m3", []float32{1000, 0.3, -1, 0}, 128, []float32{896, 0.3125, -1, 0}},
		// Tie: 1.0625/1 lies halfway between 1 and 1.125; even code is 1.
		{"mxfp8-e4m3", []float32{256, 1.0625, 1.1875}, 127, []float32{256, 1, 1.25}},
		// E5M2 elements saturate: max 65535 → floor(log2) = 15, X = 1,
		// 65535 > 57344 clamps (no Inf).
		{"mxfp8-e5m2", []float32{65535, 1}, 127, []float32{57344, 1}},
		// E2M1: max 5 → floor(log2) = 2, X = 1; values 0 .5 1 1.5 2 3 4 6:
		// 5 is a tie between 4 and 6 (codes 6 and 7): 4. 0.25 ties 0 and
		// 0.5: 0. 0.3 → 0.5 (subnormal element). 2.5 ties 2 and 3: 2.
		{"mxfp4-e2m1", []float32{5, 0.25, 0.3, 2.5, -5}, 127, []float32{4, 0, 0.5, 2, -4}},
		// E2M3 max 7.5: 7.9 → 7.5 with X = 1.
		// E2M3 max 7.5: 7.9 → 7.5 with X = 1. The subnormals are
		// multiples of 1/8: 0.0625 ties 0 and 0.125 (0, even); 0.2 → 0.25.
		{"mxfp6-e2m3", []float32{7.9, 0.0625, 0.2}, 127, []float32{7.5, 0, 0.25}},
		// INT8: max 1.99 → X = 1; -1.999 rounds to -2 and clamps to -127/64.
		{"mxint8", []float32{1.99, -1.999, 0.5078125}, 127, []float32{127.0 / 64, -127.0 / 64, 0.5}},
		// A zero block has scale 2^-127 (code 0).
		{"mxfp6-e3m2", []float32{0, 0}, 0, []float32{0, 0}},
		// Clamped scale: max 2^-140 → shared exp -144 clamps to -127; the
		// values are multiples of E4M3's smallest subnormal 2^-9 times
		// 2^-127: 2^-140 is 1/16 of it and rounds to 0.
		{"mxfp8-e4m3", []float32{0x1p-140, 0x1p-136}, 0, []float32{0, 0x1p-136}},
		{"mxfp8-e4m3", []float32{float32(math.NaN()), 1}, 0xff, []float32{float32(math.NaN()), float32(math.NaN())}},
	} {
		b := MustParseBlock(c.name)
		got := make([]float32, len(c.src))
		b.RoundBlocks(got, c.src)
		codes, scales := make([]uint32, len(c.src)), make([]uint8, 1)
		b.Encode(codes, scales, c.src)
		if scales[0] != c.scale {
			t.Errorf("%s %v: scale %#x, want %#x", c.name, c.src, scales[0], c.scale)
		}
		for i := range got {
			if !same32(got[i], c.want[i]) {
				t.Errorf("%s %v: [%d] = %g, want %g", c.name, c.src, i, got[i], c.want[i])
			}
		}
	}
}

func TestBlockParse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"mxfp8-e4m3", "mxfp8-e4m3"},
		{"MXFP8-E5M2", "mxfp8-e5m2"},
		{"mxfp6-e2m3(block=16)", "mxfp6-e2m3(block=16)"},
		{"mxfp6-e3m2(block=32)", "mxfp6-e3m2"},
		{" mxfp4-e2m1 ", "mxfp4-e2m1"},
		{"mxint8(block=1)", "mxint8(block=1)"},
		{"posit(8,1,block=32)", "posit(8,1,block=32)"},
		{"p(6,1,block=16)", "posit(6,1,block=16)"},
	} {
		b, err := ParseBlock(c.in)
		if err != nil {
			t.Errorf("ParseBlock(%q): %v", c.in, err)
			continue
		}
		if b.String() != c.want || MustParseBlock(b.String()) != b {
			t.Errorf("ParseBlock(%q) = %v, want %s (and back)", c.in, b, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"mxfp8", "unknown block format"},
		{"mxfp8-e4m3(block=0)", "out of range"},
		{"mxfp8-e4m3(block=x)", "not an integer"},
		{"mxfp8-e4m3(scale=2)", "takes no arguments or (block=K)"},
		{"posit(8,1,scale=3)", "posit(n,es,block=K)"},
		{"posit(32,2,block=32)", "n <= 16 and es <= 2"},
		{"posit(8,1)", "unknown block format"},
		{"fp8-e4m3", "unknown block format"},
	} {
		_, err := ParseBlock(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseBlock(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
	// Parse names the block formats and sends the caller to ParseBlock.
	if _, err := Parse("mxfp8-e4m3"); err == nil || !strings.Contains(err.Error(), "ParseBlock") {
		t.Errorf("Parse(mxfp8-e4m3) = %v, want a pointer to ParseBlock", err)
	}
	// The element formats are Formats.
	for _, c := range []struct {
		name string
		max  float64
		bits int
	}{{"fp6-e2m3", 7.5, 6}, {"fp6-e3m2", 28, 6}, {"fp4-e2m1", 6, 4}} {
		f := MustParse(c.name).(Float)
		if f.String() != c.name || f.Max() != c.max || f.Bits() != c.bits || f.hasNaN() {
			t.Errorf("%s: %v max %g bits %d NaN %v", c.name, f, f.Max(), f.Bits(), f.hasNaN())
		}
	}
}

func TestBlockStochastic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"mxfp8-e4m3", "mxfp4-e2m1", "mxint8", "posit(8,1,block=32)", "mxfp8-e5m2(block=7)"} {
		b := MustParseBlock(name)
		src := make([]float32, 100)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * 0.01)
		}
		src[5] = 0.02 // fix the first block's scale
		near := make([]float32, len(src))
		b.RoundBlocks(near, src)
		// Each value's draws take at most two values lo <= x <= hi (the
		// element grid at the block's scale), and their mean is within six
		// standard errors, (hi-lo)/2/sqrt(runs), of x.
		const runs = 4000
		sum := make([]float64, len(src))
		lo, hi := make([]float32, len(src)), make([]float32, len(src))
		pcg := rand.NewPCG(9, 9)
		dst := make([]float32, len(src))
		for r := range runs {
			b.RoundBlocksStochastic(dst, src, pcg)
			for i, v := range dst {
				sum[i] += float64(v)
				if r == 0 || v < lo[i] {
					lo[i] = v
				}
				if r == 0 || v > hi[i] {
					hi[i] = v
				}
			}
		}
		for i, x := range src {
			mean := sum[i] / runs
			bx, _ := b.blockExp32(src[i/b.Block()*b.Block() : min(len(src), (i/b.Block()+1)*b.Block())])
			if sat := float32(math.Ldexp(-b.elemLow(), bx)); lo[i] == hi[i] && math.Abs(float64(lo[i])) == float64(sat) {
				continue // saturated at the element format's largest normal
			}
			if lo[i] == hi[i] {
				if lo[i] != near[i] {
					t.Errorf("%v: stochastic rounding of %g always gave %g, nearest is %g", b, x, lo[i], near[i])
				}
				continue
			}
			if lo[i] > x || hi[i] < x {
				t.Errorf("%v: stochastic rounding of %g gave %g..%g", b, x, lo[i], hi[i])
				continue
			}
			if d := math.Abs(mean - float64(x)); d > 6*float64(hi[i]-lo[i])/2/math.Sqrt(runs)+1e-12 {
				t.Errorf("%v: mean of stochastic rounding of %g is %g (draws %g..%g)", b, x, mean, lo[i], hi[i])
			}
		}
		// Reproducible from the seed.
		a, c := make([]float32, len(src)), make([]float32, len(src))
		b.RoundBlocksStochastic(a, src, rand.NewPCG(1, 1))
		b.RoundBlocksStochastic(c, src, rand.NewPCG(1, 1))
		for i := range a {
			if !same32(a[i], c[i]) {
				t.Fatalf("%v: stochastic rounding not reproducible", b)
			}
		}
		// Stochastic rounding is the element format's, at the block's
		// scale: the same draws as rounding the scaled block directly.
		blk := src[:b.Block()]
		x, _ := b.blockExp32(blk)
		el := b.roundElem()
		scaled := make([]float32, len(blk))
		for i, v := range blk {
			scaled[i] = float32(math.Ldexp(float64(v), -x))
		}
		el.RoundSliceStochastic(scaled, scaled, rand.NewPCG(5, 5))
		got := make([]float32, len(blk))
		b.RoundBlocksStochastic(got, blk, rand.NewPCG(5, 5))
		for i := range got {
			w := float32(math.Ldexp(math.Max(float64(scaled[i]), b.elemLow()), x))
			if !same32(got[i], w) {
				t.Errorf("%v: stochastic [%d] = %g, want %g", b, i, got[i], w)
			}
		}
	}
}

// TestBlockPositRule measures the mean relative error of block posits for
// each choice of t, the binade the rule puts a block's largest magnitude
// in, on blocks of 32 values from three distributions at random scales,
// and checks that the rule's t is within 3% of the best.
func TestBlockPositRule(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	for _, name := range []string{"posit(8,0)", "posit(8,1)", "posit(8,2)", "posit(6,1)"} {
		p := MustParse(name).(Posit)
		for _, dist := range []string{"gauss", "laplace", "loguniform"} {
			errs := map[int]float64{}
			best := 0
			for tt := -2; tt <= 6; tt++ {
				rng := rand.New(rand.NewPCG(5, 6))
				var sum float64
				var n int
				xs := make([]float64, 32)
				for range 1000 {
					sc := math.Ldexp(1, rng.IntN(20)-10)
					amax := 0.0
					for i := range xs {
						var v float64
						switch dist {
						case "gauss":
							v = rng.NormFloat64()
						case "laplace":
							v = rng.ExpFloat64() * float64(1-2*rng.IntN(2))
						default:
							v = math.Exp2(-8 * rng.Float64())
						}
						xs[i] = v * sc
						amax = max(amax, math.Abs(xs[i]))
					}
					_, e := math.Frexp(amax)
					q, _ := Scale(p, tt-(e-1))
					for _, x := range xs {
						sum += math.Abs(q.Round64(x)-x) / math.Abs(x)
						n++
					}
				}
				errs[tt] = sum / float64(n)
				if errs[tt] < errs[best] || tt == -2 {
					best = tt
				}
			}
			rule := positBlockTop(p)
			t.Logf("%s %-10s mean relative error by t: %v; best t=%d, rule t=%d", name, dist, fmtErrs(errs), best, rule)
			if errs[rule] > errs[best]*1.03 && dist == "gauss" {
				t.Errorf("%s %s: rule t=%d gives %.4f, best t=%d gives %.4f", name, dist, rule, errs[rule], best, errs[best])
			}
		}
	}
}

func fmtErrs(m map[int]float64) string {
	var b strings.Builder
	for tt := -2; tt <= 6; tt++ {
		if tt > -2 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimRight(strings.TrimRight(big.NewFloat(m[tt]).Text('f', 4), "0"), "."))
	}
	return b.String()
}

func TestBlockPanics(t *testing.T) {
	b := MustParseBlock("mxfp8-e4m3")
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"lengths", func() { b.RoundBlocks(make([]float32, 2), make([]float32, 3)) }},
		{"shape", func() { b.RoundMatrix(make([]float32, 6), make([]float32, 6), 2, 2, AlongRow, Nearest, nil) }},
		{"no rng", func() { b.RoundBlocksStochastic(make([]float32, 2), make([]float32, 2), nil) }},
		{"scales", func() { b.Encode(make([]uint32, 40), make([]uint8, 1), make([]float32, 40)) }},
		{"zero format", func() { BlockFormat{}.RoundBlocks(nil, nil) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.f()
		}()
	}
}
