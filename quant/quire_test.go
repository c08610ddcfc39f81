package quant_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// refSum returns the exact value of the terms' sum (nil if a NaR enters).
func (r *refPosit) refSum(terms []term) *big.Rat {
	s := new(big.Rat)
	for _, t := range terms {
		va := r.val(t.a)
		if va == nil {
			return nil
		}
		x := new(big.Rat).Set(va)
		if !t.lone {
			vb := r.val(t.b)
			if vb == nil {
				return nil
			}
			x.Mul(x, vb)
		}
		if t.sub {
			s.Sub(s, x)
		} else {
			s.Add(s, x)
		}
	}
	return s
}

func (r *refPosit) roundSum(terms []term) uint32 {
	s := r.refSum(terms)
	if s == nil {
		return r.nar()
	}
	return r.round(s)
}

// term is one quire operation: ±a·b, or ±a if lone.
type term struct {
	a, b      uint32
	sub, lone bool
}

func (t term) apply(q *quant.Quire) {
	switch {
	case t.lone && t.sub:
		q.Sub(t.a)
	case t.lone:
		q.Add(t.a)
	case t.sub:
		q.SubProduct(t.a, t.b)
	default:
		q.AddProduct(t.a, t.b)
	}
}

// randomCodes returns n codes drawn in one of several ways: uniform over
// all codes but NaR, near ±1, or from a few values of both signs (so that
// products cancel).
func randomCodes(p quant.Posit, n int, rng *rand.Rand) []uint32 {
	m := p.Mask()
	one := uint32(1) << (p.N() - 2)
	few := []uint32{1, p.MaxCode(), one, one + 1, one - 1, rng.Uint32() & m}
	kind := rng.IntN(3)
	cs := make([]uint32, n)
	for i := range cs {
		var c uint32
		switch kind {
		case 0:
			c = rng.Uint32() & m
		case 1:
			c = one + uint32(rng.IntN(64)) - 32
		case 2:
			c = few[rng.IntN(len(few))]
		}
		if rng.IntN(2) == 0 {
			c = -c
		}
		c &= m
		if c == p.NaR() {
			c = 0
		}
		cs[i] = c
	}
	return cs
}

func randomLen(rng *rand.Rand) int {
	return int(math.Exp(rng.Float64() * math.Log(1000))) // 1..1000, log-uniform
}

var quireFormats = []fmtCase{
	{8, 0, 0}, {8, 1, 0}, {8, 2, 0}, {6, 1, 0}, {16, 1, 0}, {16, 2, 0},
	{8, 1, -5}, {12, 3, 7}, {16, 0, 0}, {5, 4, 974}, {8, 3, -974}, {10, 4, 300}, {32, 2, 0},
	{2, 0, 0}, {3, 2, 0}, {4, 4, -900}, {24, 1, 3}, {20, 0, -3}, {30, 0, 0},
}

// TestQuireDot checks Dot, AddDot and a quire fed product by product on
// random dot products against the exact sum, rounded by the reference.
func TestQuireDot(t *testing.T) {
	trials := 40
	if testing.Short() {
		trials = 5
	}
	for _, fc := range quireFormats {
		t.Run(fc.String(), func(t *testing.T) {
			p := scaledPosit(t, fc.n, fc.es, fc.scale)
			r := newRef(fc.n, fc.es, fc.scale, fc.n <= 12)
			rng := rand.New(rand.NewPCG(uint64(fc.n)<<8|uint64(fc.es), uint64(fc.scale+2000)))
			q := p.NewQuire()
			for trial := range trials {
				n := randomLen(rng)
				a, b := randomCodes(p, n, rng), randomCodes(p, n, rng)
				switch trial % 16 {
				case 7:
					a[rng.IntN(n)] = p.NaR()
				case 15:
					b[rng.IntN(n)] = p.NaR() | ^p.Mask() // bits above n are ignored
				}
				terms := make([]term, n)
				for i := range terms {
					terms[i] = term{a: a[i], b: b[i]}
				}
				want := r.roundSum(terms)
				if got := p.Dot(a, b); got != want {
					t.Fatalf("%v.Dot(%#x, %#x) = %#x, want %#x", p, a, b, got, want)
				}
				q.Reset()
				for i := range a {
					q.AddProduct(a[i], b[i])
				}
				if got := q.Round(); got != want {
					t.Fatalf("%v: AddProduct sum of %#x·%#x = %#x, want %#x", p, a, b, got, want)
				}
				// Split AddDot across two calls, and check the quire
				// is left unchanged by Round.
				q.Reset()
				k := rng.IntN(n + 1)
				q.AddDot(a[:k], b[:k])
				q.Round()
				q.AddDot(a[k:], b[k:])
				if got := q.Round(); got != want {
					t.Fatalf("%v: AddDot sum of %#x·%#x = %#x, want %#x", p, a, b, got, want)
				}
				if f32, ok := float32s(p, a, b); ok {
					got := p.DotFloat32(f32[0], f32[1])
					if w := float32(p.Decode(want)); got != w {
						t.Fatalf("%v.DotFloat32(%v, %v) = %v, want %v", p, f32[0], f32[1], got, w)
					}
				}
			}
		})
	}
}

// float32s returns the values of a and b as float32, if all are exact.
func float32s(p quant.Posit, a, b []uint32) ([2][]float32, bool) {
	var f [2][]float32
	for k, cs := range [][]uint32{a, b} {
		for _, c := range cs {
			v := p.Decode(c)
			if float64(float32(v)) != v {
				return f, false
			}
			f[k] = append(f[k], float32(v))
		}
	}
	return f, true
}

// TestQuireMixed feeds random mixtures of AddProduct, SubProduct, Add and
// Sub, including NaR.
func TestQuireMixed(t *testing.T) {
	for _, fc := range quireFormats {
		t.Run(fc.String(), func(t *testing.T) {
			p := scaledPosit(t, fc.n, fc.es, fc.scale)
			r := newRef(fc.n, fc.es, fc.scale, fc.n <= 12)
			rng := rand.New(rand.NewPCG(uint64(fc.n), uint64(fc.scale+5000)))
			q := p.NewQuire()
			for trial := range 30 {
				n := 1 + rng.IntN(60)
				a, b := randomCodes(p, n, rng), randomCodes(p, n, rng)
				terms := make([]term, n)
				for i := range terms {
					terms[i] = term{a: a[i], b: b[i], sub: rng.IntN(2) == 0}
					if rng.IntN(3) == 0 {
						terms[i].lone = true
					}
				}
				if trial%10 == 9 {
					terms[rng.IntN(n)].a = p.NaR()
				}
				q.Reset()
				for _, tm := range terms {
					tm.apply(q)
				}
				if got, want := q.Round(), r.roundSum(terms); got != want {
					t.Fatalf("%v: quire of %v = %#x, want %#x", p, terms, got, want)
				}
				if q.IsNaR() != (trial%10 == 9) {
					t.Fatalf("%v: IsNaR() = %v after %v", p, q.IsNaR(), terms)
				}
			}
		})
	}
}

// TestQuireEdges checks cancellation, saturation, NaR and sticky rounding
// with expectations worked out by hand.
func TestQuireEdges(t *testing.T) {
	p8 := scaledPosit(t, 8, 0, 0)     // minpos 1/64, maxpos 64
	p16 := scaledPosit(t, 16, 2, 0)   // generic (word by word) path
	p81 := scaledPosit(t, 8, 1, -900) // extreme bias
	p82 := scaledPosit(t, 8, 2, 0)    // minpos 2^-24, maxpos 2^24
	p2to11 := uint32(0x76)            // 0 1110 11 0: 16^2·2^3 = 2^11
	type tc struct {
		p     quant.Posit
		terms []term
		want  uint32
		why   string
	}
	max8, min8, one8 := uint32(0x7f), uint32(0x01), uint32(0x40)
	max16, min16 := uint32(0x7fff), uint32(0x0001)
	cases := []tc{
		{p8, []term{{max8, max8, false, false}, {max8, max8, true, false}, {min8, min8, false, false}}, min8,
			"maxpos² - maxpos² + minpos² = 2^-12, below minpos: rounds up to minpos"},
		{p8, []term{{max8, max8, false, false}, {min8, min8, false, false}, {max8, max8, true, false}}, min8,
			"the same, minpos² added between"},
		{p8, []term{{min8, min8, true, false}}, 0xff, "-minpos² gives -minpos"},
		{p8, []term{{min8, min8, false, false}, {min8, min8, true, false}}, 0, "exact cancellation gives 0"},
		{p8, []term{{max8, max8, false, false}, {max8, max8, false, false}}, max8, "2·maxpos² saturates to maxpos"},
		{p8, []term{{max8, max8, true, false}, {max8, one8, true, false}}, 0x81, "-(maxpos²+maxpos) saturates to -maxpos"},
		{p8, []term{{one8, one8, false, false}, {min8, one8, false, false}}, 0x40,
			"1 + 1/64 is the 1|33/32 tie: even"},
		{p8, []term{{one8, one8, false, false}, {min8, one8, false, false}, {min8, min8, false, false}}, 0x41,
			"1 + 1/64 + 2^-12 is just above the tie"},
		{p8, []term{{one8, one8, false, false}, {min8, one8, false, false}, {min8, min8, true, false}}, 0x40,
			"1 + 1/64 - 2^-12 is just below the tie"},
		{p8, []term{{one8, 0, false, true}, {min8, 0, false, true}, {min8, min8, true, false}}, 0x40,
			"the same with Add"},
		{p8, []term{{one8, one8, true, false}, {0x03, one8, true, false}}, 0xbe,
			"-(1 + 3/64) is the tie -33/32|-17/16: even, -0x42"},
		{p8, []term{{one8, one8, true, false}, {min8, one8, true, false}}, 0xc0, "-(1 + 1/64): even, -1"},
		{p82, []term{{p2to11, p2to11, false, false}}, 0x7e,
			"posit(8,2): 2^22 is the tie 2^20|2^24 (9-bit 0 1111110 1): even, 2^20"},
		{p82, []term{{p2to11, p2to11, false, false}, {0x01, 0x01, false, false}}, 0x7f,
			"2^22 + minpos², three words apart, rounds up"},
		{p82, []term{{p2to11, p2to11, false, false}, {0x01, 0x01, true, false}}, 0x7e, "2^22 - minpos² rounds down"},
		{p82, []term{{p2to11, p2to11, true, false}}, 0x82, "-2^22: even, -2^20"},
		{p82, []term{{p2to11, p2to11, true, false}, {0x01, 0x01, true, false}}, 0x81, "-2^22 - minpos²: -2^24"},
		{p82, []term{{p2to11, p2to11, true, false}, {0x01, 0x01, false, false}}, 0x82, "-2^22 + minpos²: -2^20"},
		{p8, []term{{0x80, 0x80, false, false}}, 0x80, "NaR·NaR"},
		{p8, []term{{0x80, 0, false, false}}, 0x80, "NaR·0"},
		{p8, []term{{one8, one8, false, false}, {0x80, 0, true, true}, {one8, one8, false, false}}, 0x80, "NaR poisons"},
		{p8, nil, 0, "empty sum"},
		{p16, []term{{max16, max16, false, false}, {max16, max16, true, false}, {min16, min16, false, false}}, min16,
			"posit(16,2): maxpos² - maxpos² + minpos²"},
		{p16, []term{{max16, max16, false, false}, {min16, min16, true, false}}, max16, "maxpos² - minpos² saturates"},
		{p16, []term{{min16, min16, true, false}, {min16, 0, false, true}}, min16, "minpos - minpos²: minpos"},
		{p81, []term{{0x7f, 0x7f, false, false}, {0x7f, 0x7f, true, false}, {0x01, 0x01, false, false}}, 0x7f,
			"bias -900: minpos² = 2^1776 is beyond maxpos = 2^912"},
		{p81, []term{{0x7f, 0, false, true}, {0x01, 0, false, true}, {0x7f, 0, true, true}}, 0x01,
			"bias -900, lone posits"},
	}
	for _, c := range cases {
		q := c.p.NewQuire()
		for _, tm := range c.terms {
			tm.apply(q)
		}
		if got := q.Round(); got != c.want {
			t.Errorf("%v: %s: got %#x, want %#x", c.p, c.why, got, c.want)
		}
	}
	// All-NaR dot products, through every kernel.
	for _, p := range []quant.Posit{p8, p82, p16, p81, scaledPosit(t, 32, 2, 0), scaledPosit(t, 16, 1, 0)} {
		nar := []uint32{p.NaR(), p.NaR(), p.NaR()}
		nan := float32(math.NaN())
		if got := p.Dot(nar, nar); got != p.NaR() {
			t.Errorf("%v.Dot(all NaR) = %#x, want NaR", p, got)
		}
		if got := p.DotFloat32([]float32{nan, nan}, []float32{nan, nan}); !math.IsNaN(float64(got)) {
			t.Errorf("%v.DotFloat32(all NaN) = %v, want NaN", p, got)
		}
	}
}

// TestQuireHeadroom adds 2^20 products of maxpos² one way, then takes them
// away with one minpos² left over, through every kernel.
func TestQuireHeadroom(t *testing.T) {
	const n = 1 << 20
	for _, fc := range []fmtCase{{8, 1, 0}, {8, 2, 0}, {16, 1, 0}, {16, 2, 0}} {
		p := scaledPosit(t, fc.n, fc.es, fc.scale)
		a := make([]uint32, n)
		for i := range a {
			a[i] = p.MaxCode()
		}
		neg := make([]uint32, n)
		for i := range neg {
			neg[i] = p.Neg(p.MaxCode())
		}
		q := p.NewQuire()
		q.AddDot(a, a)
		if got := q.Round(); got != p.MaxCode() {
			t.Errorf("%v: 2^20·maxpos² = %#x, want maxpos", p, got)
		}
		q.AddDot(a, a)
		q.AddProduct(1, 1)
		q.AddDot(neg, a)
		q.AddDot(a, neg)
		if got := q.Round(); got != 1 {
			t.Errorf("%v: 2·2^20·maxpos² + minpos² - 2·2^20·maxpos² = %#x, want minpos", p, got)
		}
	}
}

// TestQuireLongSums sums 2^18 equal products of near-maximal
// significands, at every binary place modulo 16, and checks the exact
// result: long blocks must not overflow any kernel's accumulators.
func TestQuireLongSums(t *testing.T) {
	const n = 1 << 18
	a, b := make([]uint32, n), make([]uint32, n)
	fa, fb := make([]float32, n), make([]float32, n)
	for _, fc := range []fmtCase{{8, 1, 0}, {8, 2, 0}, {16, 1, 0}, {16, 2, 0}} {
		p := scaledPosit(t, fc.n, fc.es, fc.scale)
		r := newRef(fc.n, fc.es, fc.scale, false)
		below := func(j int) uint32 { return p.Encode64(math.Ldexp(1, j)) - 1 } // largest value < 2^j
		for j := range 16 {
			x, y := below(1), below(j+1)
			for i := range a {
				a[i], b[i] = x, y
				fa[i], fb[i] = float32(p.Decode(x)), float32(p.Decode(y))
			}
			sum := new(big.Rat).Mul(r.val(x), r.val(y))
			sum.Mul(sum, big.NewRat(n, 1))
			want := r.round(sum)
			if got := p.Dot(a, b); got != want {
				t.Errorf("%v: 2^18·%#x·%#x = %#x, want %#x", p, x, y, got, want)
			}
			if got, w := p.DotFloat32(fa, fb), float32(p.Decode(want)); got != w {
				t.Errorf("%v: 2^18·%v·%v = %v, want %v", p, fa[0], fb[0], got, w)
			}
		}
	}
}

// TestQuireEveryFormat runs the extreme operands through the quire of
// every posit(n, es) at its extreme exponent biases.
func TestQuireEveryFormat(t *testing.T) {
	for n := 2; n <= 32; n++ {
		for es := 0; es <= 4; es++ {
			base := scaledPosit(t, n, es, 0)
			lim := 0 // the largest bias Scale accepts
			for lim < 2000 {
				if _, err := quant.Scale(base, lim+1); err != nil {
					break
				}
				lim++
			}
			for _, sc := range []int{-lim, 0, lim} {
				p := scaledPosit(t, n, es, sc)
				r := newRef(n, es, sc, false)
				mx, neg := p.MaxCode(), p.Neg(p.MaxCode())
				terms := []term{{mx, mx, false, false}, {1, 0, false, true}, {1, 1, true, false}, {neg, 0, true, true}, {neg, 1, false, false}}
				q := p.NewQuire()
				for _, tm := range terms {
					tm.apply(q)
				}
				if got, want := q.Round(), r.roundSum(terms); got != want {
					t.Errorf("%v: quire of %v = %#x, want %#x", p, terms, got, want)
				}
				a, b := []uint32{mx, 1, neg, 1}, []uint32{mx, 1, mx, neg}
				want := r.roundSum([]term{{mx, mx, false, false}, {1, 1, false, false}, {neg, mx, false, false}, {1, neg, false, false}})
				if got := p.Dot(a, b); got != want {
					t.Errorf("%v.Dot(%#x, %#x) = %#x, want %#x", p, a, b, got, want)
				}
			}
		}
	}
}

// TestQuireWidth checks the widths the documentation gives.
func TestQuireWidth(t *testing.T) {
	for _, tc := range []struct {
		n, es, scale, bits int
	}{
		// A sign bit, 31 carry bits, 4(n-2)2^es + 1 bits of range and
		// 62 guard bits, rounded up to words.
		{8, 1, 0, 192},     // 33+49+62 = 144
		{8, 2, 0, 192},     // 33+97+62 = 192
		{16, 1, 0, 256},    // 33+113+62 = 208
		{16, 2, 0, 320},    // 33+225+62 = 320
		{32, 4, 0, 2048},   // 33+1921+62 = 2016
		{32, 4, 542, 2112}, // 33+(3·480+542+1)+62 = 2078: the widest
		{32, 4, -542, 2112},
	} {
		p := scaledPosit(t, tc.n, tc.es, tc.scale)
		if got := p.NewQuire().Bits(); got != tc.bits {
			t.Errorf("%v quire: %d bits, want %d", p, got, tc.bits)
		}
	}
}

func TestQuirePanics(t *testing.T) {
	p := scaledPosit(t, 8, 1, 0)
	for name, f := range map[string]func(){
		"Dot":           func() { p.Dot(make([]uint32, 2), make([]uint32, 3)) },
		"DotFloat32":    func() { p.DotFloat32(make([]float32, 2), make([]float32, 1)) },
		"AddDot":        func() { p.NewQuire().AddDot(make([]uint32, 2), nil) },
		"AddDotFloat32": func() { p.NewQuire().AddDotFloat32(nil, make([]float32, 1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with different lengths did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestDotFloat32Inputs checks inputs that are not values of the format:
// they are rounded first, unless they are multiples of minpos in range.
func TestDotFloat32Inputs(t *testing.T) {
	p := scaledPosit(t, 8, 1, 0) // minpos 2^-12, maxpos 4096; 1 + 1/8 is a value, 1+1/16 is not
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		a, b []float32
		want float32
	}{
		{[]float32{1.125, 3}, []float32{2, -0.5}, 0.75},        // values of p: 2.25 - 1.5
		{[]float32{1 + 1.0/32}, []float32{1 + 1.0/32}, 1.0625}, // multiples of minpos enter exactly: 1+1/16+1/1024
		{[]float32{1 + 1.0/8192}, []float32{1}, 1},             // not a multiple of minpos: rounded to 1 first
		{[]float32{1e6}, []float32{1e-6}, 1},                   // rounded to maxpos and minpos first: 2^12·2^-12
		{[]float32{4096, 4096}, []float32{4096, 4096}, 4096},   // saturates
		{[]float32{1e-30}, []float32{1e-30}, 1.0 / 4096},       // minpos² rounds to minpos
		{[]float32{nan, 1}, []float32{1, 1}, nan},
		{[]float32{1, 2}, []float32{inf, 1}, nan},
		{[]float32{}, []float32{}, 0},
	} {
		got := p.DotFloat32(tc.a, tc.b)
		if got != tc.want && !(math.IsNaN(float64(got)) && math.IsNaN(float64(tc.want))) {
			t.Errorf("%v.DotFloat32(%v, %v) = %v, want %v", p, tc.a, tc.b, got, tc.want)
		}
	}
	// With bias -1000 the values of posit(8,1) lie in [2^988, 2^1012]:
	// every float32 rounds up to minpos (1e-30/minpos underflows float64,
	// which must not make it 0), minpos² = 2^1976 rounds to maxpos, and
	// maxpos saturates to MaxFloat32.
	pb := scaledPosit(t, 8, 1, -1000)
	if got := pb.DotFloat32([]float32{1e-30}, []float32{1}); got != math.MaxFloat32 {
		t.Errorf("%v.DotFloat32([1e-30], [1]) = %v, want %v", pb, got, float32(math.MaxFloat32))
	}
	// posit(16,2) with bias -100 (the binned path): values in [2^44,
	// 2^156]. An infinity whose exponent field lands in the range must
	// still give NaR; 1e-30 and 1 both round up to minpos = 2^44.
	pw := scaledPosit(t, 16, 2, -100)
	if got := pw.DotFloat32([]float32{inf}, []float32{1}); !math.IsNaN(float64(got)) {
		t.Errorf("%v.DotFloat32([+Inf], [1]) = %v, want NaN", pw, got)
	}
	if got, want := pw.DotFloat32([]float32{1e-30}, []float32{1}), float32(math.Ldexp(1, 88)); got != want {
		t.Errorf("%v.DotFloat32([1e-30], [1]) = %v, want %v", pw, got, want)
	}
}

// TestDotConcurrent runs dot products of fresh formats from several
// goroutines, so that -race checks the tables built on first use.
func TestDotConcurrent(t *testing.T) {
	for _, fc := range []fmtCase{{12, 1, 0}, {14, 2, 0}, {7, 0, 0}} {
		p := scaledPosit(t, fc.n, fc.es, fc.scale)
		r := newRef(fc.n, fc.es, fc.scale, false)
		a := []uint32{p.MaxCode(), 1, p.Neg(p.MaxCode()), 3}
		b := []uint32{p.MaxCode(), 1, p.MaxCode(), 5}
		want := r.roundSum([]term{{a[0], b[0], false, false}, {a[1], b[1], false, false}, {a[2], b[2], false, false}, {a[3], b[3], false, false}})
		got := make(chan uint32)
		for range 4 {
			go func() {
				q := p.NewQuire()
				for i := range a {
					q.AddProduct(a[i], b[i])
				}
				if q.Round() != p.Dot(a, b) {
					got <- ^uint32(0)
					return
				}
				got <- q.Round()
			}()
		}
		for range 4 {
			if g := <-got; g != want {
				t.Errorf("%v: concurrent Dot gave %#x, want %#x", p, g, want)
			}
		}
	}
}

func TestDotAllocs(t *testing.T) {
	p := scaledPosit(t, 16, 2, 0)
	a := make([]uint32, 100)
	f := make([]float32, 100)
	if n := testing.AllocsPerRun(10, func() { p.Dot(a, a); p.DotFloat32(f, f) }); n != 0 {
		t.Errorf("Dot and DotFloat32 allocate %v times", n)
	}
}

func ExamplePosit_Dot() {
	p, _ := quant.NewPosit(8, 0) // minpos 1/64, maxpos 64
	max, min := p.Encode(64), p.Encode(1.0/64)
	a := []uint32{max, min, p.Neg(max)}
	b := []uint32{max, min, max}
	// 64·64 + (1/64)² - 64·64 = 2^-12, which rounds to minpos.
	fmt.Println(p.Decode(p.Dot(a, b)))
	// Rounding each product and partial sum loses it.
	s := p.Add(p.Add(p.Mul(a[0], b[0]), p.Mul(a[1], b[1])), p.Mul(a[2], b[2]))
	fmt.Println(p.Decode(s))
	// Output:
	// 0.015625
	// 0
}

func ExampleQuire() {
	p, _ := quant.NewPosit(16, 1)
	q := p.NewQuire()
	third := p.Div(p.Encode(1), p.Encode(3)) // 5461/16384
	// 3·5461/16384 = 1 - 2^-14, the tie between 1 - 2^-13 and 1: the
	// quire holds it exactly and rounds it to the even code, 1.
	for range 3 {
		q.AddProduct(third, p.Encode(1))
	}
	fmt.Println(p.Decode(third), p.Decode(q.Round()))
	q.Sub(p.Encode(1)) // leaves -2^-14, a posit
	fmt.Println(p.Decode(q.Round()))
	// Output:
	// 0.33331298828125 1
	// -6.103515625e-05
}
