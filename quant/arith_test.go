package quant_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// formatOnly hides every method of a Format but Format's, so that
// ArithmeticOf gives it the default arithmetic.
type formatOnly struct{ quant.Format }

// TestPositArithmetic64 checks Posit.Add64 and Posit.Mul64 on float64
// operands (posit values, float32s, full-width float64s, and sums that
// land on a tie or one float64 ulp beside it) against the math/big
// reference, and against the default arithmetic, which rounds the exact
// result once with Round64: posit arithmetic is correctly rounded, so
// per-op sums give the same bits either way.
func TestPositArithmetic64(t *testing.T) {
	for _, tc := range []fmtCase{{8, 1, 0}, {8, 2, 3}, {16, 1, 0}, {12, 3, 7}, {32, 2, 0}, {32, 4, -100}} {
		t.Run(tc.String(), func(t *testing.T) {
			p := scaledPosit(t, tc.n, tc.es, tc.scale)
			r := newRef(tc.n, tc.es, tc.scale, tc.n <= 16)
			own := quant.ArithmeticOf(p)
			if _, ok := own.(quant.Posit); !ok {
				t.Fatalf("ArithmeticOf(%v) is %T, want the posit itself", p, own)
			}
			generic := quant.ArithmeticOf(formatOnly{p})
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.es)+7))
			// operand draws a value of one of the kinds above, around
			// the format's range (its bias shifts it).
			posit := func() float64 {
				for {
					if v := p.Decode(uint32(rng.Uint64())); !math.IsNaN(v) {
						return v
					}
				}
			}
			operand := func() float64 {
				mag := math.Ldexp(1, rng.IntN(40)-20-tc.scale)
				switch rng.IntN(3) {
				case 0:
					return posit()
				case 1:
					return float64(float32(rng.NormFloat64() * mag))
				}
				return rng.NormFloat64() * mag
			}
			count := 1500
			if testing.Short() {
				count = 300
			}
			bad := 0
			check := func(op byte, x, y float64) {
				t.Helper()
				var got, gen float64
				exact := new(big.Rat).SetFloat64(x)
				yr := new(big.Rat).SetFloat64(y)
				if op == '+' {
					got, gen = own.Add64(x, y), generic.Add64(x, y)
					exact.Add(exact, yr)
				} else {
					got, gen = own.Mul64(x, y), generic.Mul64(x, y)
					exact.Mul(exact, yr)
				}
				want := p.Decode(r.round(exact))
				if math.Float64bits(got) != math.Float64bits(want) || math.Float64bits(gen) != math.Float64bits(want) {
					if bad++; bad <= 10 {
						t.Errorf("%v: %g %c %g: own %g, default %g, want %g", p, x, op, y, got, gen, want)
					}
				}
			}
			for range count {
				x, y := operand(), operand()
				check('+', x, y)
				check('+', x, -x*(1+0x1p-40)) // near cancellation
				check('*', x, y)
				// A sum on the tie between two neighbouring posits, and
				// one float64 ulp either side of it.
				v := posit()
				c := p.Encode64(v)
				if v > 0 && c+1 < p.NaR() {
					tie := (v + p.Decode(c+1)) / 2
					if d := tie - v; d+v == tie {
						for _, dy := range []float64{d, math.Nextafter(d, 0), math.Nextafter(d, math.Inf(1))} {
							check('+', v, dy)
						}
					}
					for _, m := range []float64{1, math.Nextafter(1, 0), math.Nextafter(1, 2)} {
						check('*', tie, m)
					}
				}
			}
		})
	}
}

// TestPositArithmetic64Specials pins the non-finite and zero cases.
func TestPositArithmetic64Specials(t *testing.T) {
	p := scaledPosit(t, 8, 1, 0)
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"NaN+1", p.Add64(nan, 1), nan},
		{"1+Inf", p.Add64(1, inf), nan},
		{"Inf*0", p.Mul64(inf, 0), nan},
		{"0*5", p.Mul64(0, 5), 0},
		{"-0*5", p.Mul64(math.Copysign(0, -1), 5), 0},
		{"0+0.3", p.Add64(0, 0.3), p.Round64(0.3)},
		{"x-x", p.Add64(0.3, -0.3), 0},
		{"saturate", p.Mul64(1e300, 1e300), 4096},
		{"no underflow", p.Mul64(1e-300, -1e-300), -1.0 / 4096},
	} {
		if math.Float64bits(tc.got) != math.Float64bits(tc.want) && !(math.IsNaN(tc.got) && math.IsNaN(tc.want)) {
			t.Errorf("%s = %g, want %g", tc.name, tc.got, tc.want)
		}
	}
}

// TestArithmeticOf checks which arithmetic formats get: their own when
// they (or a registered Codec) have one, else the exact result rounded
// once.
func TestArithmeticOf(t *testing.T) {
	fp8 := quant.MustParse("fp8-e4m3")
	a := quant.ArithmeticOf(fp8)
	if _, ok := a.(quant.Format); ok {
		t.Errorf("ArithmeticOf(fp8-e4m3) is the format itself (%T); floats have no arithmetic of their own", a)
	}
	// 1 + 2^-4 + 2^-60 is above the tie 1 + 2^-4 between 1 and 1.125: a
	// sum formed in float64 first and then rounded would tie to 1.
	if got := a.Add64(1+0x1p-4, 0x1p-60); got != 1.125 {
		t.Errorf("default Add64 = %g, want 1.125 (rounded once from the exact sum)", got)
	}
	if got := a.Mul64(3, 7); got != 20 { // 21 ties between 20 and 22: to even
		t.Errorf("default Mul64(3, 7) = %g, want 20", got)
	}
	f, err := quant.FromCodec(truncCodec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := quant.ArithmeticOf(f).(truncCodec); !ok {
		t.Errorf("ArithmeticOf(a Codec format with arithmetic) is %T, want the Codec", quant.ArithmeticOf(f))
	}
}

// truncCodec is fixed point with 4 fraction bits in 8-bit two's
// complement, rounding to nearest, whose adder truncates towards zero.
type truncCodec struct{}

func (truncCodec) String() string { return "arithtest-trunc" }
func (truncCodec) Bits() int      { return 8 }
func (truncCodec) Encode(x float32) uint32 {
	return uint32(int8(math.RoundToEven(math.Max(-128, math.Min(127, float64(x)*16)))))
}
func (truncCodec) Decode(c uint32) float64 { return float64(int8(c)) / 16 }
func (truncCodec) Add64(x, y float64) float64 {
	return math.Max(-8, math.Min(127.0/16, math.Trunc((x+y)*16)/16))
}
func (c truncCodec) Mul64(x, y float64) float64 {
	return c.Decode(c.Encode(float32(x * y)))
}
