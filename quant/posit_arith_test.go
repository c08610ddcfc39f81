package quant_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// refPosit is an independent reference for posit(n, es) with exponent bias
// scale, written from the definition with math/big. It shares no code with
// the package: it reads codes bit by bit and rounds by comparing against the
// (n+1)-bit tie values, as the posit standard specifies.
type refPosit struct {
	n, es, scale int
	vals         []*big.Rat // vals[c] = value of code c, if tabulated
	ties         []*big.Rat // ties[c] = value of (n+1)-bit code c, if tabulated
}

func newRef(n, es, scale int, tabulate bool) *refPosit {
	r := &refPosit{n: n, es: es, scale: scale}
	if tabulate {
		r.vals = make([]*big.Rat, 1<<n)
		for c := range r.vals {
			r.vals[c] = refDecode(n, es, scale, uint64(c))
		}
		r.ties = make([]*big.Rat, 1<<(n+1))
		for c := range r.ties {
			r.ties[c] = refDecode(n+1, es, scale, uint64(c))
		}
	}
	return r
}

// refDecode returns the value of the n-bit posit code c, nil for NaR:
// sign, then a regime run of identical bits ended by the opposite bit (or
// the end), then up to es exponent bits (missing bits are 0), then the
// fraction; value (-1)^s·2^(k·2^es+e)·(1+f), negatives by two's complement,
// divided by 2^scale.
func refDecode(n, es, scale int, c uint64) *big.Rat {
	mask := uint64(1)<<n - 1
	c &= mask
	if c == 0 {
		return new(big.Rat)
	}
	if c == 1<<(n-1) {
		return nil
	}
	neg := c>>(n-1) == 1
	if neg {
		c = -c & mask
	}
	bit := func(i int) uint64 { return c >> (n - 2 - i) & 1 } // i-th bit after the sign
	nb := n - 1
	run := 1
	for run < nb && bit(run) == bit(0) {
		run++
	}
	k := -run
	if bit(0) == 1 {
		k = run - 1
	}
	i := run + 1 // skip the terminating bit
	e := 0
	for j := 0; j < es; j++ {
		e <<= 1
		if i < nb {
			e |= int(bit(i))
			i++
		}
	}
	f := big.NewInt(1)
	fb := 0
	for ; i < nb; i++ {
		f.Lsh(f, 1)
		f.Or(f, big.NewInt(int64(bit(i))))
		fb++
	}
	v := new(big.Rat).SetInt(f)
	v.Mul(v, pow2(k*(1<<es)+e-fb-scale))
	if neg {
		v.Neg(v)
	}
	return v
}

func pow2(e int) *big.Rat {
	one := big.NewInt(1)
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(one, uint(e)))
	}
	return new(big.Rat).SetFrac(one, new(big.Int).Lsh(one, uint(-e)))
}

func (r *refPosit) val(c uint32) *big.Rat {
	if r.vals != nil {
		return r.vals[c&(1<<r.n-1)]
	}
	return refDecode(r.n, r.es, r.scale, uint64(c))
}

func (r *refPosit) tie(c uint64) *big.Rat {
	if r.ties != nil {
		return r.ties[c]
	}
	return refDecode(r.n+1, r.es, r.scale, c)
}

func (r *refPosit) nar() uint32 { return 1 << (r.n - 1) }

// roundBy returns the code nearest to a target x known only through
// cmp(v) = sign(x - v), for every value v of the format. approx, an
// estimate of x, only speeds up the search: every decision is made by cmp.
func (r *refPosit) roundBy(cmp func(v *big.Rat) int, approx float64) uint32 {
	mask := uint32(1)<<r.n - 1
	switch cmp(new(big.Rat)) {
	case 0:
		return 0
	case -1:
		c := r.roundBy(func(v *big.Rat) int { return -cmp(new(big.Rat).Neg(v)) }, -approx)
		return -c & mask
	}
	maxCode := uint32(1)<<(r.n-1) - 1
	if cmp(r.val(maxCode)) >= 0 {
		return maxCode
	}
	if cmp(r.val(1)) <= 0 {
		return 1
	}
	// Find lo < hi with val(lo) <= x < val(hi): gallop from the guess,
	// then bisect.
	lo, hi := uint32(1), maxCode
	if g := r.guess(approx); g > 1 && g < maxCode {
		if cmp(r.val(g)) >= 0 {
			lo = g
			for step := uint32(1); maxCode-lo > step; step *= 2 {
				if cmp(r.val(lo+step)) < 0 {
					hi = lo + step
					break
				}
				lo += step
			}
		} else {
			hi = g
			for step := uint32(1); hi-1 > step; step *= 2 {
				if cmp(r.val(hi-step)) >= 0 {
					lo = hi - step
					break
				}
				hi -= step
			}
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if cmp(r.val(mid)) >= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	if cmp(r.val(lo)) == 0 {
		return lo
	}
	switch cmp(r.tie(2*uint64(lo) + 1)) {
	case -1:
		return lo
	case 1:
		return hi
	}
	if lo&1 == 0 {
		return lo
	}
	return hi
}

// guess returns a code near the positive x, 0 if it has none: the bits
// of x truncated to n-1 after the sign, built from the definition.
func (r *refPosit) guess(x float64) uint32 {
	if !(x > 0) || math.IsInf(x, 1) {
		return 0
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	s := exp - 1 + r.scale
	k := s >> r.es // floor
	e := s - k<<r.es
	var code uint64
	nb := 0
	put := func(b uint64) {
		if nb < r.n-1 {
			code = code<<1 | b
			nb++
		}
	}
	if k >= 0 {
		for range k + 1 {
			put(1)
		}
		put(0)
	} else {
		for range -k {
			put(0)
		}
		put(1)
	}
	for i := r.es - 1; i >= 0; i-- {
		put(uint64(e >> i & 1))
	}
	f := frac*2 - 1
	for nb < r.n-1 {
		f *= 2
		put(uint64(f))
		f -= math.Floor(f)
	}
	return uint32(code)
}

func (r *refPosit) round(x *big.Rat) uint32 {
	f, _ := x.Float64()
	return r.roundBy(func(v *big.Rat) int { return x.Cmp(v) }, f)
}

// op returns the reference result of a op b for op in "+-*/".
func (r *refPosit) op(op byte, a, b uint32) uint32 {
	va, vb := r.val(a), r.val(b)
	if va == nil || vb == nil {
		return r.nar()
	}
	x := new(big.Rat)
	switch op {
	case '+':
		x.Add(va, vb)
	case '-':
		x.Sub(va, vb)
	case '*':
		x.Mul(va, vb)
	case '/':
		if vb.Sign() == 0 {
			return r.nar()
		}
		x.Quo(va, vb)
	}
	return r.round(x)
}

func (r *refPosit) sqrt(a uint32) uint32 {
	va := r.val(a)
	if va == nil || va.Sign() < 0 {
		return r.nar()
	}
	// sqrt(va) vs v, for v >= 0, is va vs v².
	f, _ := va.Float64()
	return r.roundBy(func(v *big.Rat) int {
		switch v.Sign() {
		case -1:
			return 1
		case 0:
			return va.Sign()
		}
		return va.Cmp(new(big.Rat).Mul(v, v))
	}, math.Sqrt(f))
}

// scaledPosit returns posit(n, es) with exponent bias scale.
func scaledPosit(t testing.TB, n, es, scale int) quant.Posit {
	t.Helper()
	p, err := quant.NewPosit(n, es)
	if err != nil {
		t.Fatal(err)
	}
	if scale == 0 {
		return p
	}
	f, err := quant.Scale(p, scale)
	if err != nil {
		t.Fatal(err)
	}
	return f.(quant.Posit)
}

// opFunc is a binary operation on codes with its reference symbol.
type opFunc struct {
	name string
	sym  byte
	f    func(p quant.Posit, a, b uint32) uint32
}

var arithOps = []opFunc{
	{"Add", '+', quant.Posit.Add},
	{"Sub", '-', quant.Posit.Sub},
	{"Mul", '*', quant.Posit.Mul},
	{"Div", '/', quant.Posit.Div},
}

// TestRefDecode checks the reference decoder itself against values worked
// out by hand from the bit fields.
func TestRefDecode(t *testing.T) {
	for _, tc := range []struct {
		n, es, scale int
		code         uint64
		want         string // "" for NaR
	}{
		{8, 0, 0, 0x40, "1"},      // 0 10 00000: k=0
		{8, 0, 0, 0x01, "1/64"},   // 0 0000001: k=-6
		{8, 0, 0, 0x7f, "64"},     // 0 1111111: k=6
		{8, 0, 0, 0x50, "3/2"},    // 0 10 10000: k=0, f=.1
		{8, 0, 0, 0xc0, "-1"},     // two's complement of 0x40
		{8, 0, 0, 0xb0, "-3/2"},   // two's complement of 0x50
		{8, 1, 0, 0x7f, "4096"},   // k=6, useed=4
		{8, 1, 0, 0x01, "1/4096"}, // k=-6
		{8, 2, 0, 0x01, "1/16777216"},
		{8, 2, 0, 0x6d, "160"},          // 0 110 11 01: k=1, e=3, f=.01: 16·8·5/4
		{6, 1, 0, 0x1e, "64"},           // 0 11110: k=3, e cut off (0): 4^3
		{6, 1, 0, 0x1d, "32"},           // 0 1110 1: k=2, e=1: 16·2
		{6, 1, 0, 0x03, "1/32"},         // 0 0001 1: k=-3, e=1: 4^-3·2
		{8, 1, 3, 0x40, "1/8"},          // 1 with bias 3
		{8, 1, -2, 0x40, "4"},           // 1 with bias -2
		{16, 1, 0, 0x4001, "4097/4096"}, // 0 10 0 000000000001: f=2^-12
		{9, 0, 0, 0x0bf, "127/64"},      // 0 10 111111: f=63/64
		{9, 0, 0, 0x100, ""},            // NaR
		{9, 0, 0, 0x080, "1"},           // 0 10 000000
		{6, 1, 0, 0x1f, "256"},          // maxpos: 0 11111, k=4
	} {
		got := refDecode(tc.n, tc.es, tc.scale, tc.code)
		if tc.want == "" {
			if got != nil {
				t.Errorf("refDecode(%d,%d,%d, %#x) = %v, want NaR", tc.n, tc.es, tc.scale, tc.code, got)
			}
			continue
		}
		want, _ := new(big.Rat).SetString(tc.want)
		if got == nil || got.Cmp(want) != 0 {
			t.Errorf("refDecode(%d,%d,%d, %#x) = %v, want %v", tc.n, tc.es, tc.scale, tc.code, got, want)
		}
	}
}

// TestRefRound checks the reference rounding against ties and saturation
// worked out by hand.
func TestRefRound(t *testing.T) {
	for _, tc := range []struct {
		n, es int
		x     string
		want  uint32
	}{
		{8, 0, "1", 0x40},
		{8, 0, "65/64", 0x40},     // tie between 1 (0x40) and 33/32 (0x41): even
		{8, 0, "67/64", 0x42},     // tie between 0x41 and 17/16 (0x42): even
		{8, 0, "4161/4096", 0x41}, // just above the 0x40/0x41 tie
		{8, 0, "48", 0x7e},        // tie 32|64 is the 9-bit 0 11111101 = 48: even
		{8, 0, "49", 0x7f},
		{8, 0, "47", 0x7e},
		{8, 0, "1000", 0x7f},   // saturates at maxpos
		{8, 0, "1/1000", 0x01}, // never rounds to 0
		{8, 0, "3/128", 0x02},  // tie 1/64|1/32 is the 9-bit 0 00000011 = 1/64·1.5: even code 0x02
		{8, 0, "1/50", 0x01},   // below that tie
		{8, 0, "-1", 0xc0},
		{8, 0, "-1000", 0x81},
		{8, 2, "3", 0x4c},   // exactly 0 10 01 100 = 2·1.5
		{6, 1, "96", 0x1e},  // tie 64|256 is the 7-bit 0 111101 = 4^3·2 = 128; 96 < 128
		{6, 1, "128", 0x1e}, // at the tie: 0x1e is even
		{6, 1, "129", 0x1f},
	} {
		r := newRef(tc.n, tc.es, 0, false)
		x, _ := new(big.Rat).SetString(tc.x)
		if got := r.round(x); got != tc.want {
			t.Errorf("posit(%d,%d): round(%s) = %#x, want %#x", tc.n, tc.es, tc.x, got, tc.want)
		}
	}
}

type fmtCase struct{ n, es, scale int }

func (f fmtCase) String() string { return fmt.Sprintf("posit(%d,%d,%d)", f.n, f.es, f.scale) }

// TestArithExhaustive checks Add, Sub, Mul, Div on every pair of codes, and
// Sqrt on every code, against the reference.
func TestArithExhaustive(t *testing.T) {
	formats := []fmtCase{
		{8, 0, 0}, {8, 1, 0}, {8, 2, 0}, {6, 1, 0},
		{2, 0, 0}, {3, 1, 0}, {4, 0, 0}, {5, 2, 0}, {5, 4, 0}, {6, 3, 5}, {7, 2, -3}, {6, 0, 40},
	}
	if testing.Short() {
		formats = formats[1:2]
	}
	for _, fc := range formats {
		t.Run(fc.String(), func(t *testing.T) {
			p := scaledPosit(t, fc.n, fc.es, fc.scale)
			r := newRef(fc.n, fc.es, fc.scale, true)
			size := uint32(1) << fc.n
			for _, op := range arithOps {
				bad := 0
				for a := range size {
					for b := range size {
						got, want := op.f(p, a, b), r.op(op.sym, a, b)
						if got != want && bad < 10 {
							bad++
							t.Errorf("%v.%s(%#x, %#x) = %#x, want %#x", p, op.name, a, b, got, want)
						}
					}
				}
			}
			for a := range size {
				if got, want := p.Sqrt(a), r.sqrt(a); got != want {
					t.Errorf("%v.Sqrt(%#x) = %#x, want %#x", p, a, got, want)
				}
				if got, want := p.Neg(a), refNeg(r, a); got != want {
					t.Errorf("%v.Neg(%#x) = %#x, want %#x", p, a, got, want)
				}
			}
		})
	}
}

func refNeg(r *refPosit, a uint32) uint32 {
	v := r.val(a)
	if v == nil {
		return r.nar()
	}
	return r.round(new(big.Rat).Neg(v))
}

// specialCodes returns codes worth testing in every wide format: zero, NaR,
// ±minpos, ±maxpos, ±1 and their neighbours.
func specialCodes(p quant.Posit) []uint32 {
	m := p.Mask()
	one := uint32(1) << (p.N() - 2)
	var cs []uint32
	for _, c := range []uint32{0, p.NaR(), 1, 2, 3, p.MaxCode(), p.MaxCode() - 1, p.MaxCode() - 2, one - 1, one, one + 1} {
		cs = append(cs, c&m, -c&m)
	}
	return cs
}

// randomPairs returns n pairs: all pairs of special codes, then a mix of
// uniform codes, near-cancelling pairs (b close to -a) and pairs of close
// magnitudes.
func randomPairs(p quant.Posit, n int, rng *rand.Rand) [][2]uint32 {
	m := p.Mask()
	sp := specialCodes(p)
	var ps [][2]uint32
	for _, a := range sp {
		for _, b := range sp {
			ps = append(ps, [2]uint32{a, b})
		}
	}
	for len(ps) < n {
		a := rng.Uint32() & m
		var b uint32
		switch rng.IntN(4) {
		case 0, 1:
			b = rng.Uint32() & m
		case 2:
			b = (-a + uint32(rng.IntN(9)) - 4) & m // near -a: cancellation
		case 3:
			b = (a + uint32(rng.IntN(9)) - 4) & m
		}
		ps = append(ps, [2]uint32{a, b})
	}
	return ps
}

// TestArithRandom samples pairs in the wide formats: all pairs of special
// codes, then random, near-cancelling and close pairs.
func TestArithRandom(t *testing.T) {
	for _, tc := range []struct {
		fmtCase
		pairs int
	}{
		{fmtCase{16, 1, 0}, 10000},
		{fmtCase{16, 2, 0}, 10000},
		{fmtCase{32, 2, 0}, 10000},
		{fmtCase{32, 0, 0}, 2000},
		{fmtCase{32, 4, -100}, 2000},
		{fmtCase{12, 3, 7}, 5000},
	} {
		t.Run(tc.String(), func(t *testing.T) {
			p := scaledPosit(t, tc.n, tc.es, tc.scale)
			r := newRef(tc.n, tc.es, tc.scale, tc.n <= 16)
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.es)))
			count := tc.pairs
			if testing.Short() {
				count /= 10
			}
			bad := 0
			for _, ab := range randomPairs(p, count, rng) {
				a, b := ab[0], ab[1]
				for _, op := range arithOps {
					got, want := op.f(p, a, b), r.op(op.sym, a, b)
					if got != want && bad < 10 {
						bad++
						t.Errorf("%v.%s(%#x, %#x) = %#x, want %#x", p, op.name, a, b, got, want)
					}
				}
				if got, want := p.Sqrt(a), r.sqrt(a); got != want && bad < 10 {
					bad++
					t.Errorf("%v.Sqrt(%#x) = %#x, want %#x", p, a, got, want)
				}
			}
		})
	}
}

// TestArithCases pins down results derived by hand.
func TestArithCases(t *testing.T) {
	p8 := scaledPosit(t, 8, 0, 0)
	p16 := scaledPosit(t, 16, 1, 0)
	p32 := scaledPosit(t, 32, 2, 0)
	ops := map[string]func(p quant.Posit, a, b uint32) uint32{
		"Add": quant.Posit.Add, "Sub": quant.Posit.Sub, "Mul": quant.Posit.Mul, "Div": quant.Posit.Div,
		"Sqrt": func(p quant.Posit, a, _ uint32) uint32 { return p.Sqrt(a) },
	}
	for _, tc := range []struct {
		p    quant.Posit
		op   string
		a, b uint32
		want uint32
		why  string
	}{
		{p8, "Add", 0x40, 0x40, 0x60, "1+1 = 2 = 0 110 0000"},
		{p8, "Add", 0xff40, 0x140, 0x60, "bits above the n code bits are ignored"},
		{p8, "Add", 0x40, 0xc0, 0x00, "1 + -1 = 0"},
		{p8, "Sub", 0x50, 0x50, 0x00, "x - x = 0"},
		{p8, "Add", 0x40, 0x01, 0x40, "1 + 1/64 is the tie 1|33/32: even"},
		{p8, "Add", 0x41, 0x01, 0x42, "33/32 + 1/64 is the tie 0x41|0x42: even"},
		{p8, "Mul", 0x50, 0x50, 0x62, "1.5² = 2.25 = 0 110 0010"},
		{p8, "Mul", 0x7f, 0x7f, 0x7f, "maxpos² saturates"},
		{p8, "Mul", 0x01, 0x01, 0x01, "minpos² gives minpos, never 0"},
		{p8, "Mul", 0x81, 0x01, 0xc0, "-64 · 1/64 = -1"},
		{p8, "Div", 0x40, 0x60, 0x20, "1/2 = 0 01 00000"},
		{p8, "Div", 0x40, 0x00, 0x80, "1/0 = NaR"},
		{p8, "Div", 0x00, 0x40, 0x00, "0/1 = 0"},
		{p8, "Add", 0x80, 0x00, 0x80, "NaR + 0 = NaR"},
		{p8, "Mul", 0x80, 0x00, 0x80, "NaR · 0 = NaR"},
		{p8, "Sqrt", 0x62, 0, 0x50, "sqrt(2.25) = 1.5"},
		{p8, "Sqrt", 0x60, 0, 0x4d, "sqrt 2 = 1.41421 is below the 45/32|46/32 midpoint 1.421875"},
		{p8, "Sqrt", 0xc0, 0, 0x80, "sqrt -1 = NaR"},
		{p16, "Mul", 0x7fff, 0x7fff, 0x7fff, "maxpos² saturates"},
		{p16, "Div", 0x4000, 0x5800, 0x2555, "1/3: 0 01 0 010101010101 (1365.33/4096 rounds down)"},
		{p32, "Add", 0x40000000, 0x00000001, 0x40000000, "1 + minpos rounds to 1"},
		{p32, "Sub", 0x40000000, 0x40000000, 0x00000000, "1 - 1 = 0"},
		{p32, "Add", 0x40000000 | 0xff, 0x0000_0000, 0x400000ff, "x + 0 = x"},
	} {
		if got := ops[tc.op](tc.p, tc.a, tc.b); got != tc.want {
			t.Errorf("%v.%s(%#x, %#x) = %#x, want %#x (%s)", tc.p, tc.op, tc.a, tc.b, got, tc.want, tc.why)
		}
	}
}
