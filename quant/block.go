package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// BlockFormat is a block-scaled format: a run of values is cut into blocks
// of Block() consecutive values (the last block of a run may be shorter);
// each block stores one 8-bit scale code s and each value an element code
// c, and the value is Elem().Decode(c)·ScaleValue(s). Rounding one value
// depends on the other values of its block, so a BlockFormat is not a
// Format: it rounds runs of values (RoundBlocks) or the rows or columns of
// a matrix (RoundMatrix), never one value alone.
//
// Two families are implemented.
//
// MX, the OCP Microscaling formats (OCP MX specification v1.0):
// mxfp8-e4m3, mxfp8-e5m2, mxfp6-e2m3, mxfp6-e3m2, mxfp4-e2m1 and mxint8,
// with elements fp8-e4m3, fp8-e5m2, fp6-e2m3, fp6-e3m2, fp4-e2m1 and
// fixed(8,6) (MXINT8's two's-complement int8 with its implicit 2^-6). The
// scale is E8M0: code s stands for 2^(s-127), and 0xFF is NaN. A block V
// converts as section 6.3 of the specification says: shared_exp =
// floor(log2(max|V_i|)) - emax_elem, where emax_elem is the exponent of
// the element format's largest normal (8, 15, 2, 4, 2 and 0), clamped to
// E8M0's range [-127, 127]; X = 2^shared_exp; each element is V_i/X rounded
// to the element format, to nearest with ties to even (or stochastically),
// with magnitudes beyond the element's largest normal clamped to it (so
// fp8-e5m2 elements saturate instead of overflowing to Inf, and mxint8
// elements stay in [-127/64, 127/64]: the code 0x80 = -2 decodes but is
// never produced). A block of zeros has the scale 2^-127 (code 0). A NaN
// or an infinity anywhere in a block makes the whole block NaN: scale code
// 0xFF, every value NaN.
//
// Block posits, posit(n,es,block=K): posit elements that share a per-block
// exponent bias k, stored as an 8-bit two's-complement integer: the block
// is rounded as posit(n,es,scale=k) rounds it, so the value of code c is
// Decode(c)·2^-k. The bias is chosen from the block's largest finite
// magnitude a: k = t - floor(log2 a), clamped to [-127, 127], which puts a
// in the binade [2^t, 2^(t+1)), with t = 3, 2, 3 for es = 0, 1, 2: the t
// that gives the least mean relative error on blocks of 32 Gaussian,
// Laplace and log-uniform values (TestBlockPositRule; docs/formats.md). So
// for posit(8,1) the largest magnitude lands in [4, 8), one binade above
// the most accurate binades [1/4, 4), and the bulk of a Gaussian block in
// them. A block without finite nonzero values has k = 0. NaN and
// ±Inf become NaR one by one, as in Posit; a nonzero value never rounds to
// 0. Elements are limited to n <= 16 and es <= 2, so that every rounded
// value is a float32 or is resolved as Posit.Round resolves it.
//
// BlockFormat values are comparable; the zero BlockFormat is no format
// (IsZero), and stands for "none" where a role may hold one.
type BlockFormat struct {
	elem  Format
	block int
	kind  blockKind
}

type blockKind uint8

const (
	blockNone blockKind = iota
	blockMX
	blockPosit
)

// Limits of the block formats.
const (
	// DefaultBlock is the block size of the OCP MX formats.
	DefaultBlock = 32
	// MaxBlock is the largest block size.
	MaxBlock = 1 << 16
	// MXScaleNaN is the E8M0 scale code of a NaN block.
	MXScaleNaN = 0xFF
	// mxScaleBias is E8M0's exponent bias, and maxBlockExp the largest
	// |exponent| of a block's scale.
	mxScaleBias = 127
	maxBlockExp = 127
	// maxBlockPositBits and maxBlockPositES bound the posit elements.
	maxBlockPositBits = 16
	maxBlockPositES   = 2
)

// mxInt8 is MXINT8's element: two's-complement int8 with an implicit 2^-6.
var mxInt8 = Fixed{wl: 8, fl: 6}

// mxElems are the MX formats' names and element formats.
var mxElems = []struct {
	name string
	elem Format
}{
	{"mxfp8-e4m3", FP8E4M3},
	{"mxfp8-e5m2", FP8E5M2},
	{"mxfp6-e2m3", FP6E2M3},
	{"mxfp6-e3m2", FP6E3M2},
	{"mxfp4-e2m1", FP4E2M1},
	{"mxint8", mxInt8},
}

// NewMX returns the MX format with the given element format (one of
// fp8-e4m3, fp8-e5m2, fp6-e2m3, fp6-e3m2, fp4-e2m1, fixed(8,6)) and block
// size (1 to MaxBlock; the specification's is DefaultBlock).
func NewMX(elem Format, block int) (BlockFormat, error) {
	for _, m := range mxElems {
		if m.elem == elem {
			if err := checkBlock(m.name, block); err != nil {
				return BlockFormat{}, err
			}
			return BlockFormat{elem: elem, block: block, kind: blockMX}, nil
		}
	}
	return BlockFormat{}, FormatError(fmt.Sprintf("%v is not an MX element format (want fp8-e4m3, fp8-e5m2, fp6-e2m3, fp6-e3m2, fp4-e2m1 or fixed(8,6))", elem))
}

// NewBlockPosit returns posit(n,es,block=K) for the posit p (n <= 16,
// es <= 2, no exponent bias) and block size K.
func NewBlockPosit(p Posit, block int) (BlockFormat, error) {
	name := fmt.Sprintf("posit(%d,%d,block=%d)", p.n, p.es, block)
	switch {
	case p.n == 0:
		return BlockFormat{}, FormatError(name + ": not a valid posit")
	case p.scale != 0:
		return BlockFormat{}, FormatError(fmt.Sprintf("%v: a block posit chooses its exponent bias per block and takes no scale", p))
	case p.n > maxBlockPositBits || p.es > maxBlockPositES:
		return BlockFormat{}, FormatError(fmt.Sprintf("%s: block posits take n <= %d and es <= %d", name, maxBlockPositBits, maxBlockPositES))
	}
	if err := checkBlock(name, block); err != nil {
		return BlockFormat{}, err
	}
	return BlockFormat{elem: p, block: block, kind: blockPosit}, nil
}

func checkBlock(name string, block int) error {
	if block < 1 || block > MaxBlock {
		return FormatError(fmt.Sprintf("%s: block size %d out of range [1,%d]", name, block, MaxBlock))
	}
	return nil
}

// ParseBlock returns the block format a name denotes (case-insensitive,
// spaces ignored):
//
//	mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4-e2m1 mxint8   OCP MX, blocks of 32
//	mxfp6-e2m3(block=16)                                         another block size
//	posit(n,es,block=K)  p(n,es,block=K)                         block posit
//
// ParseBlock(b.String()) == b.
func ParseBlock(name string) (BlockFormat, error) {
	s := strings.ToLower(strings.Join(strings.Fields(name), ""))
	head, args, hasArgs, err := splitCall(s)
	if err != nil {
		return BlockFormat{}, FormatError(fmt.Sprintf("%q: %v", name, err))
	}
	for _, m := range mxElems {
		if head != m.name {
			continue
		}
		block := DefaultBlock
		switch {
		case !hasArgs:
		case len(args) == 1 && strings.HasPrefix(args[0], "block="):
			if block, err = intArg(m.name+" block size", strings.TrimPrefix(args[0], "block=")); err != nil {
				return BlockFormat{}, err
			}
		default:
			return BlockFormat{}, FormatError(fmt.Sprintf("%q: %s takes no arguments or (block=K)", name, m.name))
		}
		return NewMX(m.elem, block)
	}
	if (head == "posit" || head == "p") && hasArgs && len(args) == 3 {
		v, ok := strings.CutPrefix(args[2], "block=")
		if !ok {
			return BlockFormat{}, FormatError(fmt.Sprintf("%q: a block posit is posit(n,es,block=K)", name))
		}
		block, err := intArg("posit block size", v)
		if err != nil {
			return BlockFormat{}, err
		}
		n, err := intArg("posit width", args[0])
		if err != nil {
			return BlockFormat{}, err
		}
		es, err := intArg("posit es", args[1])
		if err != nil {
			return BlockFormat{}, err
		}
		p, err := NewPosit(n, es)
		if err != nil {
			return BlockFormat{}, err
		}
		return NewBlockPosit(p, block)
	}
	return BlockFormat{}, FormatError(fmt.Sprintf("%q: unknown block format (try mxfp8-e4m3, mxfp4-e2m1(block=16), mxint8, posit(8,1,block=32))", name))
}

// MustParseBlock is ParseBlock for names known to be valid; it panics on
// error.
func MustParseBlock(name string) BlockFormat {
	b, err := ParseBlock(name)
	if err != nil {
		panic(err)
	}
	return b
}

// isBlockName reports whether name parses as a block format.
func isBlockName(name string) bool {
	_, err := ParseBlock(name)
	return err == nil
}

// String returns the canonical name: mxfp8-e4m3, mxfp6-e2m3(block=16),
// posit(8,1,block=32); "none" for the zero BlockFormat.
func (b BlockFormat) String() string {
	switch b.kind {
	case blockMX:
		for _, m := range mxElems {
			if m.elem == b.elem {
				if b.block == DefaultBlock {
					return m.name
				}
				return m.name + "(block=" + strconv.Itoa(b.block) + ")"
			}
		}
	case blockPosit:
		p := b.elem.(Posit)
		return fmt.Sprintf("posit(%d,%d,block=%d)", p.n, p.es, b.block)
	}
	return "none"
}

// IsZero reports whether b is the zero BlockFormat (no format).
func (b BlockFormat) IsZero() bool { return b.kind == blockNone }

// IsMX reports whether b is an OCP MX format.
func (b BlockFormat) IsMX() bool { return b.kind == blockMX }

// Elem returns the element format: element codes decode with it (values
// at scale 1).
func (b BlockFormat) Elem() Format { return b.elem }

// Block returns the block size.
func (b BlockFormat) Block() int { return b.block }

// Bits returns the width of an element code.
func (b BlockFormat) Bits() int { return b.elem.Bits() }

// BitsPerValue returns the storage per value, scales included:
// Bits() + 8/Block().
func (b BlockFormat) BitsPerValue() float64 { return float64(b.Bits()) + 8/float64(b.block) }

// NumBlocks returns the number of blocks a run of n values has.
func (b BlockFormat) NumBlocks(n int) int { return (n + b.block - 1) / b.block }

// EmaxElem returns, for an MX format, the exponent of the element
// format's largest normal (8 for E4M3, 15 for E5M2, 2 for E2M3, 4 for E3M2,
// 2 for E2M1, 0 for INT8); for a block posit, t, the binade its rule puts
// a block's largest magnitude in.
func (b BlockFormat) EmaxElem() int {
	switch e := b.elem.(type) {
	case Float:
		return e.emax()
	case Fixed:
		return 0
	case Posit:
		return positBlockTop(e)
	}
	return 0
}

// positBlockTop is the binade t a block posit puts its block's largest
// magnitude in, by es (measured: TestBlockPositRule).
func positBlockTop(p Posit) int { return [maxBlockPositES + 1]int{3, 2, 3}[p.es] }

// ScaleValue returns the factor scale code s stands for: 2^(s-127) for MX
// (NaN for MXScaleNaN), 2^-k with k = int8(s) for a block posit.
func (b BlockFormat) ScaleValue(s uint8) float64 {
	if b.kind == blockMX {
		if s == MXScaleNaN {
			return math.NaN()
		}
		return math.Ldexp(1, int(s)-mxScaleBias)
	}
	return math.Ldexp(1, -int(int8(s)))
}

// scaleCode returns the scale code of a block whose values are element
// values times 2^x.
func (b BlockFormat) scaleCode(x int, nan bool) uint8 {
	switch {
	case nan:
		return MXScaleNaN
	case b.kind == blockMX:
		return uint8(x + mxScaleBias)
	}
	return uint8(int8(-x))
}

// Encode rounds src to b, block by block, to nearest, and writes each
// value's element code to codes and each block's scale code to scales:
// codes[i] and scales[i/Block()] describe src[i]. In a NaN MX block the
// element codes are the element format's NaN code if it has one, else 0.
// It panics unless len(codes) == len(src) and len(scales) ==
// NumBlocks(len(src)).
func (b BlockFormat) Encode(codes []uint32, scales []uint8, src []float32) {
	b.mustBeValid()
	if len(codes) != len(src) || len(scales) != b.NumBlocks(len(src)) {
		panic(errLength)
	}
	v := make([]float64, min(b.block, len(src)))
	for j := range scales {
		blk := src[j*b.block : min((j+1)*b.block, len(src))]
		x, nan := b.blockExp32(blk)
		scales[j] = b.scaleCode(x, nan)
		v = v[:len(blk)]
		for i, s := range blk {
			v[i] = float64(s)
		}
		b.roundBlock64(v, v, x, nan)
		for i, r := range v {
			codes[j*b.block+i] = b.encodeElem(r, x, nan)
		}
	}
}

// encodeElem returns the element code of the rounded value v of a block
// with scale exponent x.
func (b BlockFormat) encodeElem(v float64, x int, nan bool) uint32 {
	if nan {
		if f, ok := b.elem.(Float); ok {
			c, _ := f.NaN()
			return c
		}
		return 0
	}
	return b.elem.Encode(float32(math.Ldexp(v, -x))) // an element value: exact
}

// Decode sets dst[i] to the value of element code codes[i] in block i/Block()
// with scale code scales[i/Block()]. It panics unless len(codes) ==
// len(dst) and len(scales) == NumBlocks(len(dst)).
func (b BlockFormat) Decode(dst []float64, codes []uint32, scales []uint8) {
	b.mustBeValid()
	if len(codes) != len(dst) || len(scales) != b.NumBlocks(len(dst)) {
		panic(errLength)
	}
	for i, c := range codes {
		dst[i] = b.elem.Decode(c) * b.ScaleValue(scales[i/b.block])
	}
}

// RoundBlocks sets dst to src rounded to b to nearest, blocks of Block()
// consecutive values (the last may be shorter); dst may be src. The result
// is what Encode and Decode give, as float32 (every value of an MX format
// is a float32). It panics if the lengths differ.
func (b BlockFormat) RoundBlocks(dst, src []float32) {
	b.RoundMatrix(dst, src, 1, len(src), AlongRow, Nearest, nil)
}

// RoundBlocksStochastic is RoundBlocks with the elements rounded
// stochastically (each block's scale is chosen as for RoundBlocks): each
// value divided by its block's scale is rounded as the element format's
// RoundSliceStochastic rounds it, with random bits from rng.
func (b BlockFormat) RoundBlocksStochastic(dst, src []float32, rng *rand.PCG) {
	if rng == nil {
		panic("quant: stochastic rounding needs a random source")
	}
	b.RoundMatrix(dst, src, 1, len(src), AlongRow, Stochastic, rng)
}

// RoundBlocks64 is RoundBlocks on float64 data, rounded once, to nearest
// (for gradient checks). A block's scale comes from its largest float64
// magnitude.
func (b BlockFormat) RoundBlocks64(dst, src []float64) {
	b.RoundMatrix64(dst, src, 1, len(src), AlongRow)
}

// Axis says which way the blocks of a row-major matrix run.
type Axis uint8

const (
	// AlongRow: a block is a run of consecutive elements of one row; each
	// row starts a block, and its last block may be shorter.
	AlongRow Axis = iota
	// AlongColumn: a block is a run of consecutive rows of one column; the
	// last block of each column may be shorter.
	AlongColumn
)

func (a Axis) String() string {
	switch a {
	case AlongRow:
		return "along-row"
	case AlongColumn:
		return "along-column"
	}
	return fmt.Sprintf("Axis(%d)", uint8(a))
}

// RoundMatrix rounds the rows×cols row-major matrix src (row stride cols)
// to b into dst, with blocks running along axis; dst may be src. With
// Stochastic rounding the elements are rounded stochastically with random
// bits from rng. The blocks of a dot product's operands run along its
// reduction dimension: for C = A·B, A's along its rows and B's along its
// columns. It panics if len(src) != rows·cols, the lengths differ, or
// stochastic rounding has no rng.
func (b BlockFormat) RoundMatrix(dst, src []float32, rows, cols int, axis Axis, r Rounding, rng *rand.PCG) {
	b.mustBeValid()
	checkMatrix(len(dst), len(src), rows, cols)
	if r == Stochastic && rng == nil {
		panic("quant: stochastic rounding needs a random source")
	}
	k := b.kernel(r, rng)
	var sc blockScratch
	if axis == AlongColumn {
		k.roundColumns(dst, src, rows, cols, &sc)
		return
	}
	for i := 0; i < rows; i++ {
		k.roundRow(dst[i*cols:(i+1)*cols], src[i*cols:(i+1)*cols], &sc)
	}
}

// RoundMatrix64 is RoundMatrix for float64 data, rounded once to nearest.
func (b BlockFormat) RoundMatrix64(dst, src []float64, rows, cols int, axis Axis) {
	b.mustBeValid()
	checkMatrix(len(dst), len(src), rows, cols)
	b.roundMatrix64(dst, src, rows, cols, axis)
}

// RoundBlocksTo rounds src to b with rounding r into dst, which it returns
// (RoundBlocks or RoundBlocksStochastic).
func RoundBlocksTo(dst, src []float32, b BlockFormat, r Rounding, rng *rand.PCG) []float32 {
	if len(dst) != len(src) {
		panic(errLength)
	}
	b.RoundMatrix(dst, src, 1, len(src), AlongRow, r, rng)
	return dst
}

func checkMatrix(ndst, nsrc, rows, cols int) {
	if ndst != nsrc {
		panic(errLength)
	}
	if rows < 0 || cols < 0 || rows*cols != nsrc {
		panic("quant: matrix shape does not match the slice length")
	}
}

func (b BlockFormat) mustBeValid() {
	if b.kind == blockNone {
		panic("quant: the zero BlockFormat rounds nothing")
	}
}
