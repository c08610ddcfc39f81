package tanhapprox

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

func posit(t testing.TB, n, es int) quant.Posit {
	t.Helper()
	p, err := quant.NewPosit(n, es)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func bitwise(t testing.TB, fn Func, n int) Bitwise {
	t.Helper()
	b, err := NewBitwise(fn, posit(t, n, 0))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The sigmoid rule on posit(8,0) codes, worked by hand: XOR with 0x80,
// shift right by 2, and read the result k in [0,64) as k/64.
func TestSigmoidCodePosit8(t *testing.T) {
	b := bitwise(t, Sigmoid, 8)
	for _, c := range []struct {
		x    uint32  // input code
		xv   float64 // its value
		want uint32  // output code
		wv   float64 // its value, k/64
	}{
		{0x00, 0, 0x20, 0.5},                 // 0x80>>2
		{0x01, 1.0 / 64, 0x20, 0.5},          // minpos: 0x81>>2 = 0x20
		{0x20, 0.5, 0x28, 0.625},             // 0xa0>>2
		{0x40, 1, 0x30, 0.75},                // 0xc0>>2
		{0x50, 1.5, 0x34, 0.8125},            // 0xd0>>2
		{0x60, 2, 0x38, 0.875},               // 0xe0>>2
		{0x70, 4, 0x3c, 0.9375},              // 0xf0>>2
		{0x7f, 64, 0x3f, 0.984375},           // maxpos: 0xff>>2
		{0xff, -1.0 / 64, 0x1f, 0.484375},    // -minpos: 0x7f>>2
		{0xc0, -1, 0x10, 0.25},               // 0x40>>2
		{0xa0, -2, 0x08, 0.125},              // 0x20>>2
		{0x81, -64, 0x00, 0},                 // -maxpos: 0x01>>2
		{0x80, math.NaN(), 0x80, math.NaN()}, // NaR stays NaR
	} {
		p := b.Format()
		if got := p.Decode(c.x); !same(got, c.xv) {
			t.Errorf("posit(8,0) code %#x = %g, want %g", c.x, got, c.xv)
		}
		got := b.SigmoidCode(c.x)
		if got != c.want {
			t.Errorf("SigmoidCode(%#x) = %#x, want %#x", c.x, got, c.want)
		}
		if v := p.Decode(got); !same(v, c.wv) {
			t.Errorf("SigmoidCode(%#x) decodes to %g, want %g", c.x, v, c.wv)
		}
		if v := b.At(c.xv); !same(v, c.wv) {
			t.Errorf("At(%g) = %g, want %g", c.xv, v, c.wv)
		}
		if e := math.Abs(c.wv - sigmoid(c.xv)); e > 0.0607 {
			t.Errorf("sigmoid(%g) = %g, bitwise %g: error %g above the posit(8,0) bound 0.0607", c.xv, sigmoid(c.xv), c.wv, e)
		}
	}
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// The rule's output lies in [0,1), where posit(n,0) is the uniform grid
// k·2^-(n-2) with code k: the property the whole construction rests on.
func TestUnitIntervalIsUniformGrid(t *testing.T) {
	for n := 3; n <= 20; n++ {
		p := posit(t, n, 0)
		for k := uint32(0); k < 1<<(n-2); k++ {
			if got, want := p.Decode(k), math.Ldexp(float64(k), 2-n); got != want {
				t.Fatalf("posit(%d,0) code %d = %g, want %d·2^-%d = %g", n, k, got, k, n-2, want)
			}
		}
	}
}

// The error bounds and monotonicity stated in the package documentation,
// over every code.
func TestSigmoidErrorOverCodes(t *testing.T) {
	for _, c := range []struct {
		n, es int
		max   float64 // documented, 4 decimals (3 for es = 1)
	}{
		{8, 0, 0.0607}, {16, 0, 0.0490}, {3, 0, 0.3808}, {5, 0, 0.1247}, {16, 1, 0.313},
	} {
		p := posit(t, c.n, c.es)
		nar := p.NaR()
		var worst float64
		prev := -1.0
		for i := uint32(1); i <= p.Mask(); i++ { // increasing values
			x := (nar + i) & p.Mask()
			s := p.Decode(((x ^ nar) & p.Mask()) >> 2) // the bare rule
			worst = math.Max(worst, math.Abs(s-sigmoid(p.Decode(x))))
			if c.es == 0 && s < prev {
				t.Errorf("posit(%d,0): bitwise sigmoid decreases at code %#x", c.n, x)
			}
			prev = s
		}
		digits := 1e4
		if c.es != 0 {
			digits = 1e3
		}
		if got := math.Round(worst*digits) / digits; got != c.max {
			t.Errorf("posit(%d,%d): max sigmoid error %.5f, documented %g", c.n, c.es, worst, c.max)
		}
	}
}

// Tanh through 2x and 2s-1 on posit(8,0), by hand: x, the code t of 2x
// (rounded), s = ((t^0x80)>>2)/64, R = 2s-1; the corrected result uses
// δ rounded to posit(8,0): round(0.06795·64)/64 = 4/64.
func TestTanhCodePosit8(t *testing.T) {
	plain := bitwise(t, Tanh, 8)
	corr, err := NewCorrectedTanh(plain.Format(), DefaultTheta, DefaultDelta)
	if err != nil {
		t.Fatal(err)
	}
	p := plain.Format()
	for _, c := range []struct {
		x       float64
		r       float64 // plain R
		rc      float64 // corrected, δ = 4/64 (code path)
		rcExact float64 // corrected, exact δ (At)
	}{
		{0, 0, 0, 0},                                 // 2x = 0, s = 0x20/64 = 1/2
		{0.5, 0.5, 0.5, 0.5},                         // 2x = 1 (0x40), s = 0x30/64 = 3/4
		{1, 0.75, 0.75, 0.75},                        // 2x = 2 (0x60), s = 0x38/64 = 7/8; 0.75 < θ
		{1.03125, 0.75, 0.75, 0.75},                  // 2x = 2.0625 ties between 2 (0x60) and 2.125 (0x61): even, 2
		{1.09375, 0.75, 0.75, 0.75},                  // 2x = 2.1875 ties between 0x61 and 2.25 (0x62): even, 2.25; s = 0xe2>>2 = 56/64
		{1.5, 0.8125, 0.875, 0.8125 + DefaultDelta},  // 2x = 3 (0x68), s = 0xe8>>2 = 58/64
		{2, 0.875, 0.9375, 0.875 + DefaultDelta},     // 2x = 4 (0x70), s = 60/64
		{64, 0.96875, 1, 1},                          // 2x saturates to maxpos 64 (0x7f), s = 63/64
		{-1, -0.75, -0.75, -0.75},                    // 2x = -2 (0xa0), s = (0x20>>2)/64 = 8/64
		{-2, -0.875, -0.9375, -0.875 - DefaultDelta}, // 2x = -4 (0x90), s = (0x10>>2)/64 = 4/64
	} {
		x := p.Encode64(c.x)
		if p.Decode(x) != c.x {
			t.Fatalf("%g is not a posit(8,0) value", c.x)
		}
		if got := p.Decode(plain.TanhCode(x)); got != c.r {
			t.Errorf("TanhCode(%g) = %g, want %g", c.x, got, c.r)
		}
		if got := plain.At(c.x); got != c.r {
			t.Errorf("At(%g) = %g, want %g", c.x, got, c.r)
		}
		if got := p.Decode(corr.TanhCode(x)); got != c.rc {
			t.Errorf("corrected TanhCode(%g) = %g, want %g", c.x, got, c.rc)
		}
		if got := corr.RoundedOutput().At(c.x); got != c.rc {
			t.Errorf("corrected rounded At(%g) = %g, want %g", c.x, got, c.rc)
		}
		if got := corr.At(c.x); math.Abs(got-c.rcExact) > 1e-15 {
			t.Errorf("corrected At(%g) = %g, want %g", c.x, got, c.rcExact)
		}
	}
	if got := plain.TanhCode(p.NaR()); got != p.NaR() {
		t.Errorf("TanhCode(NaR) = %#x, want NaR", got)
	}
}

// The code path and At agree on every code; the corrected tanh's At
// differs from its code path only by δ's rounding, and RoundedOutput
// removes that difference.
func TestCodePathMatchesAt(t *testing.T) {
	for _, n := range []int{6, 8, 12, 16} {
		p := posit(t, n, 0)
		corr, err := NewCorrectedTanh(p, DefaultTheta, DefaultDelta)
		if err != nil {
			t.Fatal(err)
		}
		dd := math.Abs(DefaultDelta - p.Round64(DefaultDelta))
		for _, b := range []Bitwise{bitwise(t, Tanh, n), bitwise(t, Sigmoid, n), corr} {
			for c := uint32(0); c <= p.Mask(); c++ {
				x := p.Decode(c)
				code := p.Decode(b.Code(c))
				if got := b.RoundedOutput().At(x); !same(got, code) {
					t.Fatalf("%v: RoundedOutput().At(%g) = %g, code path %g", b, x, got, code)
				}
				tol := 0.0
				if b.corrected {
					tol = dd + 1e-15
				}
				if got := b.At(x); !(math.Abs(got-code) <= tol) && !same(got, code) {
					t.Fatalf("%v: At(%g) = %g, code path %g", b, x, got, code)
				}
			}
		}
	}
}

func TestNewBitwiseRejects(t *testing.T) {
	p16 := posit(t, 16, 0)
	scaled, err := quant.Scale(p16, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []quant.Posit{posit(t, 2, 0), posit(t, 16, 1), posit(t, 8, 2), scaled.(quant.Posit)} {
		if _, err := NewBitwise(Tanh, p); err == nil {
			t.Errorf("NewBitwise(%v) succeeded", p)
		}
	}
	if _, err := NewBitwise(Func(7), p16); err == nil {
		t.Error("NewBitwise(Func(7)) succeeded")
	}
	for _, td := range [][2]float64{{-0.1, 0.06}, {1, 0.06}, {math.NaN(), 0.06}, {0.7, -0.01}, {0.7, 1.5}, {0.7, math.NaN()}} {
		if _, err := NewCorrectedTanh(p16, td[0], td[1]); err == nil {
			t.Errorf("NewCorrectedTanh(theta=%g, delta=%g) succeeded", td[0], td[1])
		}
	}
}

// probes returns float32 inputs that exercise posit(n,0) rounding: every
// code's value, every tie point (the value of the (n+1)-bit code 2c+1), one
// float32 ulp either side of each, specials, and random bit patterns.
func probes(t testing.TB, n int) []float32 {
	p := posit(t, n, 0)
	q := posit(t, n+1, 0)
	var xs []float32
	add := func(v float64) {
		f := float32(v)
		xs = append(xs, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1))))
	}
	for c := uint32(0); c <= p.Mask(); c++ {
		if c != p.NaR() {
			add(p.Decode(c))
		}
	}
	for c := uint32(1); c <= q.Mask(); c += 2 {
		add(q.Decode(c))
	}
	inf := float32(math.Inf(1))
	xs = append(xs, 0, float32(math.Copysign(0, -1)), inf, -inf, float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	for range 20000 {
		xs = append(xs, math.Float32frombits(rng.Uint32()))
		xs = append(xs, float32(rng.NormFloat64()*4))
	}
	return xs
}

// The float32 kernel's posit(n,0) encoder, decoder and doubler agree
// with quant.
func TestEncode0Decode0(t *testing.T) {
	for n := 3; n <= fastMaxBits; n++ {
		p := posit(t, n, 0)
		for _, x := range probes(t, n) {
			if got, want := encode0(x, uint(n)), p.Encode(x); got != want {
				t.Fatalf("posit(%d,0): encode0(%g) = %#x, quant %#x", n, x, got, want)
			}
		}
		for c := uint32(0); c <= p.Mask(); c++ {
			if c == p.NaR() {
				continue
			}
			if got, want := decode0(c, uint(n)), p.Decode(c); float64(got) != want {
				t.Fatalf("posit(%d,0): decode0(%#x) = %g, quant %g", n, c, got, want)
			}
			if c >= p.NaR() {
				continue
			}
			if got, want := double0(c, uint(n)), p.Encode64(2*p.Decode(c)); got != want {
				t.Fatalf("posit(%d,0): double0(%#x) = %#x, quant %#x", n, c, got, want)
			}
		}
	}
}

// Apply gives float32(At(x)) exactly, for every width (the kernel for
// n <= 16, quant beyond).
func TestBitwiseApplyMatchesAt(t *testing.T) {
	for _, n := range []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 20} {
		p := posit(t, n, 0)
		corr, err := NewCorrectedTanh(p, DefaultTheta, DefaultDelta)
		if err != nil {
			t.Fatal(err)
		}
		m := n
		if m > fastMaxBits {
			m = fastMaxBits // probes of a narrower format are still good probes
		}
		src := probes(t, m)
		dst := make([]float32, len(src))
		for _, b := range []Bitwise{bitwise(t, Tanh, n), bitwise(t, Sigmoid, n), corr, corr.RoundedOutput()} {
			b.Apply(dst, src)
			for i, x := range src {
				want := float32(b.At(float64(x)))
				if math.Float32bits(dst[i]) != math.Float32bits(want) && !(dst[i] != dst[i] && want != want) {
					t.Fatalf("%v: Apply(%g) = %g, At %g", b, x, dst[i], want)
				}
			}
		}
	}
}

func TestApplyPanicsOnLengthMismatch(t *testing.T) {
	pwl, err := NewPWL(Tanh, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []Approx{bitwise(t, Tanh, 16), pwl, Exact{Tanh}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%v: Apply with lengths 2 and 3 did not panic", a)
				}
			}()
			a.Apply(make([]float32, 2), make([]float32, 3))
		}()
	}
}

// The kernel decides R > theta on the integer code; thresholds on the
// grid, next to it and at the ends must decide as the scalar path does.
func TestCorrectionThresholds(t *testing.T) {
	for _, n := range []int{3, 8, 12} {
		p := posit(t, n, 0)
		src := probes(t, n)
		dst := make([]float32, len(src))
		for _, theta := range []float64{0, 0.5, 0.75, 0.75 - 0x1p-53, 0.75 + 0x1p-53, 0.75 - 0x1p-20, 0.7583, 1 - 0x1p-53} {
			for _, delta := range []float64{0, 0.06795, 0.25, 1} {
				b, err := NewCorrectedTanh(p, theta, delta)
				if err != nil {
					t.Fatal(err)
				}
				b.Apply(dst, src)
				for i, x := range src {
					want := float32(b.At(float64(x)))
					if math.Float32bits(dst[i]) != math.Float32bits(want) && !(dst[i] != dst[i] && want != want) {
						t.Fatalf("%v: Apply(%g) = %g, At %g", b, x, dst[i], want)
					}
				}
			}
		}
	}
}
