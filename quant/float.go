package quant

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Float is an IEEE-754-style binary floating-point format float(e, m): a
// sign bit, e exponent bits and m mantissa (trailing significand) bits, 1+e+m
// bits in all, with a configurable exponent bias, optional subnormals, a
// choice of special-value encoding and a choice of overflow behaviour.
//
// A code S|E|M with 0 < E (a normal code) has the value
// (-1)^S · 2^(E-bias) · (1 + M/2^m); E = 0 gives the subnormal
// (-1)^S · 2^(1-bias) · M/2^m. The all-ones exponent field is decided by
// the Specials encoding (see Specials).
//
// Rounding is to nearest, ties to the even code, at the arithmetic midpoint
// between neighbouring values. With OverflowInf (IEEE), |x| >= max + ulp/2,
// where ulp = 2^(emax-m) is the spacing at max, gives ±Inf; between max and
// that it gives ±max. With OverflowSaturate every |x| > max, ±Inf included,
// gives ±max (the "saturating" conversion of the OCP FP8 specification).
// The sign of zero is kept, except by SpecialsFNUZ, which has no -0.
// Without subnormals, x is rounded as if the exponent range were unbounded
// below, and a result below the smallest normal is flushed to ±0 (the
// flush-to-zero of hardware without subnormal support); codes with a zero
// exponent field then decode to ±0 and are never produced by Encode.
// NaN stays NaN where the format has a NaN code; SpecialsNone has none, and
// NaN rounds to +0 there.
//
// Float values are comparable: == holds for equal formats. The zero Float is
// not a valid format (use NewFloat or Parse).
type Float struct {
	e, m    uint8
	bias    int16
	noSub   bool
	sat     bool
	special Specials
}

// Specials says which codes of a Float are not finite numbers.
type Specials uint8

const (
	// SpecialsIEEE reserves the all-ones exponent field: ±Inf with a zero
	// mantissa, NaN otherwise (IEEE 754). It needs e >= 2 and m >= 1.
	SpecialsIEEE Specials = iota
	// SpecialsOCP has no infinities and a single NaN per sign, S.11…1.11…1;
	// the rest of the all-ones exponent field holds finite values (the OCP
	// FP8 E4M3 encoding, max 448 for float(4,3)).
	SpecialsOCP
	// SpecialsNone makes every code a finite number: no Inf, no NaN.
	SpecialsNone
	// SpecialsFNUZ has one NaN, the negative-zero code 1000…0, no -0 and no
	// infinities; all other codes are finite (LLVM's FNUZ formats, e.g.
	// Float8E4M3B11FNUZ).
	SpecialsFNUZ
)

var specialsNames = [...]string{"ieee", "ocp", "none", "fnuz"}

func (s Specials) String() string {
	if int(s) < len(specialsNames) {
		return specialsNames[s]
	}
	return fmt.Sprintf("Specials(%d)", uint8(s))
}

// Overflow says what a Float does with magnitudes beyond its largest
// finite value.
type Overflow uint8

const (
	// OverflowInf rounds |x| >= max + ulp/2 to ±Inf (IEEE 754). It needs
	// SpecialsIEEE, the only encoding with infinities.
	OverflowInf Overflow = iota
	// OverflowSaturate rounds |x| > max, ±Inf included, to ±max.
	OverflowSaturate
)

func (o Overflow) String() string {
	switch o {
	case OverflowInf:
		return "inf"
	case OverflowSaturate:
		return "saturate"
	}
	return fmt.Sprintf("Overflow(%d)", uint8(o))
}

// Limits of the float formats this package implements.
const (
	// MaxFloatExpBits is the widest exponent field: a float32 input has no
	// use for a wider exponent range than float32's own.
	MaxFloatExpBits = 8
	// MaxFloatBits is the widest format.
	MaxFloatBits = 32
	// maxFloatBias bounds |bias| so that every value is exact in float64.
	maxFloatBias = 512
)

// A FloatOption sets one parameter of NewFloat.
type FloatOption func(*floatOpts)

type floatOpts struct {
	bias        int
	biasSet     bool
	noSub       bool
	overflow    Overflow
	overflowSet bool
	special     Specials
}

// WithBias sets the exponent bias (default 2^(e-1)-1).
func WithBias(b int) FloatOption {
	return func(o *floatOpts) { o.bias, o.biasSet = b, true }
}

// WithSubnormals turns subnormals on (the default) or off (flush to zero).
func WithSubnormals(on bool) FloatOption {
	return func(o *floatOpts) { o.noSub = !on }
}

// WithOverflow sets the overflow behaviour (default OverflowInf for
// SpecialsIEEE, OverflowSaturate otherwise).
func WithOverflow(v Overflow) FloatOption {
	return func(o *floatOpts) { o.overflow, o.overflowSet = v, true }
}

// WithSpecials sets the special-value encoding (default SpecialsIEEE).
func WithSpecials(s Specials) FloatOption {
	return func(o *floatOpts) { o.special = s }
}

// DefaultBias returns the IEEE exponent bias 2^(e-1)-1.
func DefaultBias(e int) int { return 1<<(e-1) - 1 }

// NewFloat returns float(e, m) with the given options: 1 <= e <= 8,
// m >= 0 and 1+e+m <= 32.
func NewFloat(e, m int, opts ...FloatOption) (Float, error) {
	if e < 1 || e > MaxFloatExpBits {
		return Float{}, FormatError(fmt.Sprintf("float(%d,%d): exponent bits must be in [1,%d]", e, m, MaxFloatExpBits))
	}
	if m < 0 || 1+e+m > MaxFloatBits {
		return Float{}, FormatError(fmt.Sprintf("float(%d,%d): mantissa bits must be in [0,%d] so that 1+e+m <= %d", e, m, MaxFloatBits-1-e, MaxFloatBits))
	}
	o := floatOpts{bias: DefaultBias(e)}
	for _, opt := range opts {
		opt(&o)
	}
	name := fmt.Sprintf("float(%d,%d)", e, m)
	if o.special > SpecialsFNUZ {
		return Float{}, FormatError(fmt.Sprintf("%s: unknown specials %v", name, o.special))
	}
	if !o.overflowSet {
		o.overflow = OverflowSaturate
		if o.special == SpecialsIEEE {
			o.overflow = OverflowInf
		}
	}
	switch {
	case o.overflow > OverflowSaturate:
		return Float{}, FormatError(fmt.Sprintf("%s: unknown overflow %v", name, o.overflow))
	case o.special == SpecialsIEEE && e < 2:
		return Float{}, FormatError(fmt.Sprintf("%s: special=ieee needs e >= 2 (the all-ones exponent is reserved); use special=none", name))
	case o.special == SpecialsIEEE && m < 1:
		return Float{}, FormatError(fmt.Sprintf("%s: special=ieee needs m >= 1 to encode NaN; use special=ocp or none", name))
	case o.special == SpecialsOCP && e == 1 && m == 0:
		return Float{}, FormatError(fmt.Sprintf("%s: special=ocp leaves no normal numbers", name))
	case o.overflow == OverflowInf && o.special != SpecialsIEEE:
		return Float{}, FormatError(fmt.Sprintf("%s: overflow=inf needs special=ieee (special=%v has no infinity)", name, o.special))
	case o.bias < -maxFloatBias || o.bias > maxFloatBias:
		return Float{}, FormatError(fmt.Sprintf("%s: bias %d out of range [-%d,%d]", name, o.bias, maxFloatBias, maxFloatBias))
	}
	return Float{
		e: uint8(e), m: uint8(m), bias: int16(o.bias),
		noSub: o.noSub, sat: o.overflow == OverflowSaturate, special: o.special,
	}, nil
}

// Preset formats. fp8-ibm-bwd is the same format as fp8-e5m2 and prints as
// fp8-e5m2.
var floatPresets = []struct {
	name string
	f    Float
}{
	{"fp32", Float{e: 8, m: 23, bias: 127}},
	{"fp16", Float{e: 5, m: 10, bias: 15}},
	{"bf16", Float{e: 8, m: 7, bias: 127}},
	{"fp8-e4m3", Float{e: 4, m: 3, bias: 7, sat: true, special: SpecialsOCP}},
	{"fp8-e5m2", Float{e: 5, m: 2, bias: 15}},
	// HFP8: X. Sun et al., "Hybrid 8-bit Floating Point (HFP8) Training
	// and Inference for Deep Neural Networks", NeurIPS 2019. Forward 1-4-3
	// with exponent bias 11 (as cited from the paper by LLVM's
	// Float8E4M3B11FNUZ and the StableHLO E4M3B11FNUZ RFC), backward 1-5-2
	// with the IEEE bias 15. The paper's Inf/NaN rules could not be
	// determined here; the forward format takes those of Float8E4M3B11FNUZ,
	// Google's implementation of it: no Inf, one NaN at 0x80, no -0,
	// saturating, max 30. The backward format keeps IEEE Inf so that loss
	// scaling sees overflow. See the README.
	{"fp8-ibm-fwd", Float{e: 4, m: 3, bias: 11, sat: true, special: SpecialsFNUZ}},
	{"fp8-ibm-bwd", Float{e: 5, m: 2, bias: 15}},
	// The element formats of the OCP Microscaling (MX) v1.0
	// specification: no Inf, no NaN, subnormals, saturating. E2M3 has
	// max 7.5, E3M2 max 28, E2M1 max 6 (see BlockFormat).
	{"fp6-e2m3", Float{e: 2, m: 3, bias: 1, sat: true, special: SpecialsNone}},
	{"fp6-e3m2", Float{e: 3, m: 2, bias: 3, sat: true, special: SpecialsNone}},
	{"fp4-e2m1", Float{e: 2, m: 1, bias: 1, sat: true, special: SpecialsNone}},
}

// Preset formats, as values.
var (
	FP32      = mustPreset("fp32")
	FP16      = mustPreset("fp16")
	BF16      = mustPreset("bf16")
	FP8E4M3   = mustPreset("fp8-e4m3")
	FP8E5M2   = mustPreset("fp8-e5m2")
	FP8IBMFwd = mustPreset("fp8-ibm-fwd")
	FP8IBMBwd = mustPreset("fp8-ibm-bwd")
	FP6E2M3   = mustPreset("fp6-e2m3")
	FP6E3M2   = mustPreset("fp6-e3m2")
	FP4E2M1   = mustPreset("fp4-e2m1")
)

func mustPreset(name string) Float {
	f, ok := floatPreset(name)
	if !ok {
		panic("quant: no preset " + name)
	}
	return f.(Float)
}

func floatPreset(name string) (Format, bool) {
	for _, p := range floatPresets {
		if p.name == name {
			return p.f, true
		}
	}
	return nil, false
}

// parseFloat parses the arguments of float(e,m,opts...) or fp(1,e,m,opts...).
func parseFloat(head string, args []string) (Format, error) {
	if head == "fp" {
		if len(args) < 3 || args[0] != "1" {
			return nil, FormatError("fp takes (1,e,m[,opt=v...]): one sign bit, e exponent bits, m mantissa bits")
		}
		args = args[1:]
	}
	if len(args) < 2 {
		return nil, FormatError("float takes (e,m[,opt=v...])")
	}
	e, err := intArg("float exponent bits", args[0])
	if err != nil {
		return nil, err
	}
	m, err := intArg("float mantissa bits", args[1])
	if err != nil {
		return nil, err
	}
	var opts []FloatOption
	seen := map[string]bool{}
	scale := 0
	for _, a := range args[2:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, FormatError(fmt.Sprintf("float option %q: want name=value", a))
		}
		if seen[k] {
			return nil, FormatError(fmt.Sprintf("float option %s given twice", k))
		}
		seen[k] = true
		switch k {
		case "bias":
			b, err := intArg("float bias", v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, WithBias(b))
		case "scale":
			if scale, err = intArg("float scale", v); err != nil {
				return nil, err
			}
		case "subnormals":
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, FormatError(fmt.Sprintf("float subnormals=%q: want true or false", v))
			}
			opts = append(opts, WithSubnormals(on))
		case "overflow":
			switch v {
			case "inf":
				opts = append(opts, WithOverflow(OverflowInf))
			case "saturate", "sat":
				opts = append(opts, WithOverflow(OverflowSaturate))
			default:
				return nil, FormatError(fmt.Sprintf("float overflow=%q: want inf or saturate", v))
			}
		case "special", "specials":
			s, ok := parseSpecials(v)
			if !ok {
				return nil, FormatError(fmt.Sprintf("float special=%q: want ieee, ocp, none or fnuz", v))
			}
			opts = append(opts, WithSpecials(s))
		default:
			return nil, FormatError(fmt.Sprintf("unknown float option %q (want bias, scale, subnormals, overflow, special)", k))
		}
	}
	f, err := NewFloat(e, m, opts...)
	if err != nil || scale == 0 {
		return f, err
	}
	return f.withScale(scale)
}

func parseSpecials(s string) (Specials, bool) {
	if s == "finite" {
		return SpecialsNone, true
	}
	for i, n := range specialsNames {
		if n == s {
			return Specials(i), true
		}
	}
	return 0, false
}

// String returns the preset name, or float(e,m) followed by the options that
// differ from their defaults, in a fixed order.
func (f Float) String() string {
	for _, p := range floatPresets {
		if p.f == f {
			return p.name
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "float(%d,%d", f.e, f.m)
	if int(f.bias) != DefaultBias(int(f.e)) {
		fmt.Fprintf(&b, ",bias=%d", f.bias)
	}
	if f.noSub {
		b.WriteString(",subnormals=false")
	}
	if f.special != SpecialsIEEE {
		fmt.Fprintf(&b, ",special=%v", f.special)
	}
	if f.sat == (f.special == SpecialsIEEE) {
		fmt.Fprintf(&b, ",overflow=%v", f.Overflow())
	}
	b.WriteByte(')')
	return b.String()
}

// withScale shifts the exponent bias by k: the values become f's values
// times 2^-k.
func (f Float) withScale(k int) (Format, error) {
	b := int(f.bias) + k
	if b < -maxFloatBias || b > maxFloatBias {
		return nil, FormatError(fmt.Sprintf("%v: scale %d puts the bias at %d, out of range [-%d,%d]", f, k, b, maxFloatBias, maxFloatBias))
	}
	f.bias = int16(b)
	return f, nil
}

// E returns the number of exponent bits.
func (f Float) E() int { return int(f.e) }

// M returns the number of mantissa (trailing significand) bits.
func (f Float) M() int { return int(f.m) }

// Bias returns the exponent bias.
func (f Float) Bias() int { return int(f.bias) }

// Subnormals reports whether the format has subnormal numbers.
func (f Float) Subnormals() bool { return !f.noSub }

// Overflow returns the overflow behaviour.
func (f Float) Overflow() Overflow {
	if f.sat {
		return OverflowSaturate
	}
	return OverflowInf
}

// Specials returns the special-value encoding.
func (f Float) Specials() Specials { return f.special }

// Bits returns 1+e+m.
func (f Float) Bits() int { return 1 + int(f.e) + int(f.m) }

// Mask returns the mask of the code bits.
func (f Float) Mask() uint32 { return uint32(1<<f.Bits() - 1) }

// emin returns the exponent of the smallest normal number, 1-bias.
func (f Float) emin() int { return 1 - int(f.bias) }

// maxMag returns the code of the largest finite value.
func (f Float) maxMag() uint32 {
	all := uint32(1)<<(f.e+f.m) - 1
	switch f.special {
	case SpecialsIEEE:
		return (uint32(1)<<f.e-1)<<f.m - 1
	case SpecialsOCP:
		return all - 1
	}
	return all
}

// emax returns the exponent of the largest finite value.
func (f Float) emax() int { return int(f.maxMag()>>f.m) - int(f.bias) }

// Max returns the largest finite value.
func (f Float) Max() float64 { return f.Decode(f.maxMag()) }

// MinNormal returns the smallest positive normal value, 2^(1-bias).
func (f Float) MinNormal() float64 { return math.Ldexp(1, f.emin()) }

// MinPos returns the smallest positive value: the smallest subnormal, or
// the smallest normal without subnormals.
func (f Float) MinPos() float64 {
	if f.noSub || f.m == 0 {
		return f.MinNormal()
	}
	return math.Ldexp(1, f.emin()-int(f.m))
}

// hasNaN reports whether some code is NaN.
func (f Float) hasNaN() bool { return f.special != SpecialsNone }

// NaN returns the canonical NaN code (with the sign bit clear, except for
// SpecialsFNUZ, whose only NaN is 1000…0), or false if there is none.
func (f Float) NaN() (uint32, bool) {
	switch f.special {
	case SpecialsIEEE:
		return (uint32(1)<<f.e-1)<<f.m | 1<<(f.m-1), true
	case SpecialsOCP:
		return uint32(1)<<(f.e+f.m) - 1, true
	case SpecialsFNUZ:
		return uint32(1) << (f.e + f.m), true
	}
	return 0, false
}

// Decode returns the exact value of code c.
func (f Float) Decode(c uint32) float64 {
	c &= f.Mask()
	signBit := uint32(1) << (f.e + f.m)
	neg := c&signBit != 0
	mag := c &^ signBit
	field := int(mag >> f.m)
	mant := mag & (uint32(1)<<f.m - 1)
	var v float64
	switch {
	case f.special == SpecialsFNUZ && c == signBit:
		return math.NaN()
	case f.special == SpecialsOCP && mag == signBit-1:
		return math.NaN()
	case f.special == SpecialsIEEE && field == 1<<f.e-1:
		if mant != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	case field == 0:
		if !f.noSub {
			v = math.Ldexp(float64(mant), f.emin()-int(f.m))
		}
	default:
		v = math.Ldexp(float64(uint64(1)<<f.m|uint64(mant)), field-int(f.bias)-int(f.m))
	}
	if neg {
		v = -v
	}
	return v
}

// Encode returns the code of x rounded to f.
func (f Float) Encode(x float32) uint32 { return f.encodeValue(f.Round64(float64(x))) }

// Encode64 returns the code of x rounded to f.
func (f Float) Encode64(x float64) uint32 { return f.encodeValue(f.Round64(x)) }

// encodeValue returns the code of v, a value of f (or NaN, ±Inf, ±0).
func (f Float) encodeValue(v float64) uint32 {
	if math.IsNaN(v) {
		c, _ := f.NaN()
		return c
	}
	var sign uint32
	if math.Signbit(v) { // never -0 in FNUZ: Round64 gives +0
		sign = 1 << (f.e + f.m)
	}
	a := math.Abs(v)
	switch {
	case math.IsInf(a, 0):
		return sign | (uint32(1)<<f.e-1)<<f.m
	case a == 0:
		return sign
	case a < f.MinNormal():
		return sign | uint32(math.Ldexp(a, int(f.m)-f.emin()))
	}
	fr, exp := math.Frexp(a) // a = fr·2^exp, fr in [0.5, 1)
	field := exp - 1 + int(f.bias)
	mant := uint32(math.Ldexp(fr, int(f.m)+1)) &^ (1 << f.m)
	return sign | uint32(field)<<f.m | mant
}

// Round returns x rounded to f.
func (f Float) Round(x float32) float32 { return float32(f.Round64(float64(x))) }

// Round64 returns x rounded to f, rounded once.
func (f Float) Round64(x float64) float64 {
	if math.IsNaN(x) {
		if f.hasNaN() {
			return x
		}
		return 0
	}
	neg := math.Signbit(x)
	a := math.Abs(x)
	switch {
	case math.IsInf(a, 0):
		if !f.sat {
			return x
		}
		a = f.Max()
	case a == 0:
	default:
		a = f.roundMag(a, 0, false)
	}
	if neg && !(a == 0 && f.special == SpecialsFNUZ) {
		a = -a
	}
	return a
}

// roundMag rounds a finite a > 0 to f: to nearest even, or, if stoch,
// stochastically with random bits u. It returns the rounded magnitude after
// flush to zero and overflow, which may be +Inf.
func (f Float) roundMag(a float64, u uint64, stoch bool) float64 {
	b := math.Float64bits(a)
	exp := int(b>>52) - 1075 // a = sig·2^exp
	sig := b & (1<<52 - 1)
	if exp == -1075 {
		exp = -1074
	} else {
		sig |= 1 << 52
	}
	e := exp + 63 - bits.LeadingZeros64(sig) // a in [2^e, 2^(e+1))
	emin, m := f.emin(), int(f.m)
	// qe is the exponent of the quantum a is rounded to.
	qe := max(e, emin) - m
	switch {
	case f.noSub && !stoch:
		qe = e - m // flush to zero after rounding
	case f.noSub && e < emin:
		qe = emin // stochastic: between 0 and the smallest normal
	}
	shift := qe - exp // low bits of sig to drop
	var k uint64
	switch {
	case shift <= 0:
		return f.finish(a) // already on the grid
	case stoch:
		if shift < 64 {
			k = sig >> shift
			rem := sig - k<<shift
			if u>>(64-shift) < rem {
				k++
			}
		} else if shift < 64+53 && u < sig>>(shift-64) {
			k = 1
		}
	case shift > 54:
		k = 0 // a < quantum/2
	default:
		k = sig >> shift
		rem := sig - k<<shift
		half := uint64(1) << (shift - 1)
		if rem > half || rem == half && f.oddAt(k, qe) {
			k++
		}
	}
	return f.finish(math.Ldexp(float64(k), qe))
}

// finish applies flush to zero and overflow to a rounded magnitude r.
func (f Float) finish(r float64) float64 {
	if f.noSub && r < f.MinNormal() {
		return 0
	}
	if r > f.Max() {
		if f.sat {
			return f.Max()
		}
		return math.Inf(1)
	}
	return r
}

// oddAt reports whether the value k·2^qe, a multiple of the quantum of its
// binade, has an odd code. For m >= 1 that is the parity of k; with no
// mantissa bits the code's last bit is the exponent field's.
func (f Float) oddAt(k uint64, qe int) bool {
	if f.m > 0 || k == 0 {
		return k&1 == 1
	}
	// k·2^qe with k a power of two: field = qe + log2(k) + bias.
	return (qe+bits.TrailingZeros64(k)+int(f.bias))&1 == 1
}
