package quant

import "math"

// Arithmetic is implemented by formats that define their own addition and
// multiplication. Per-operation accumulation (internal/gemm.PerOpGemm, the
// "per-op" accumulation of policies) computes every product and every
// partial sum with them; a format without them gets the exact result
// rounded once with Round64 (see ArithmeticOf). Posits implement it with
// their code arithmetic; a registered Codec may implement it too, for a
// format whose hardware adds or multiplies other than by rounding the
// exact result (a truncating adder, a logarithmic system's approximate
// addition).
//
// The methods take and return values, not codes, because that is what
// the caller holds: a product's operands are rounded to their own formats
// (a policy's weight and activation formats), which need not be values of
// the accumulation format, and an interface on codes would have to round
// them into it first, a second rounding the emulated hardware does not
// do. The names follow Round64.
type Arithmetic interface {
	// Add64 returns x+y computed in the format: a value of the format,
	// or NaN. The accumulator x is always a value of the format in
	// per-op sums; y is a product Mul64 returned.
	Add64(x, y float64) float64
	// Mul64 returns x·y computed in the format: a value of the format,
	// or NaN. x and y may be any float64.
	Mul64(x, y float64) float64
}

// ArithmeticOf returns the arithmetic per-operation accumulation uses for
// f: f's own if f, or the Codec a registered f was built from, implements
// Arithmetic; otherwise the exact sum or product rounded once to f with
// f.Round64. That default is exact for every format with at most 51
// significant bits: the exact result is first rounded to float64 to odd
// (TwoSum or FMA gives its error), which a second rounding to a format at
// least two bits narrower cannot tell from the exact value. It panics if
// f is nil.
func ArithmeticOf(f Format) Arithmetic {
	if f == nil {
		panic("quant: ArithmeticOf(nil)")
	}
	if a, ok := f.(Arithmetic); ok {
		return a
	}
	if t, ok := f.(*lookup); ok && t.codec != nil {
		if a, ok := t.codec.(Arithmetic); ok {
			return a
		}
	}
	return roundedArith{f}
}

// roundedArith is the default Arithmetic: the exact result rounded once.
type roundedArith struct{ f Format }

func (r roundedArith) Add64(x, y float64) float64 {
	t := x + y // TwoSum: x + y == t + e exactly
	bb := t - x
	e := (x - (t - bb)) + (y - bb)
	return r.f.Round64(roundToOdd(t, e))
}

func (r roundedArith) Mul64(x, y float64) float64 {
	p := x * y
	return r.f.Round64(roundToOdd(p, math.FMA(x, y, -p)))
}

// roundToOdd returns hi+lo rounded to float64 to odd, where hi is the
// nearest float64 to an exact value and lo its error (as TwoSum or an FMA
// gives them): hi itself if lo is 0 or hi's last bit is set, else hi's
// neighbour towards lo. A value rounded to odd and then rounded to nearest
// in a format with at least two fewer significant bits gets the same
// result as the exact value would.
func roundToOdd(hi, lo float64) float64 {
	if lo == 0 || math.Float64bits(hi)&1 == 1 {
		return hi
	}
	return math.Nextafter(hi, math.Inf(int(math.Copysign(1, lo))))
}
