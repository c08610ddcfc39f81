package quant

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Block rounding kernels.
//
// A block whose values are element values times 2^x is rounded in three
// passes over a chunk of at most blockChunk values: multiply by 2^-x
// (exact: the element formats have no values below 2^-17, so a product
// that underflows float32 rounds to ±0 either way; block posits, whose
// elements never round to 0, see a product that underflows to 0 replaced
// by the smallest float32 of its sign, which rounds to ±minpos as the
// exact product would), round the chunk with the element format's own
// slice kernel, and multiply by 2^x (exact: every MX value is a float32;
// a block posit's value that is not one is resolved as Posit.Round
// resolves it). The per-block factors live on the stack.

// blockChunk is how many values (or matrix columns) one pass handles.
const blockChunk = 256

// roundElem returns the format elements are rounded to at scale 1: the
// element format, saturating (fp8-e5m2 elements clamp to ±57344 in MX).
func (b BlockFormat) roundElem() Format {
	if f, ok := b.elem.(Float); ok {
		f.sat = true
		return f
	}
	return b.elem
}

// expFromBits returns the scale exponent x (values are element values
// times 2^x) of a block whose largest finite magnitude has the float32
// bits a.
func (b BlockFormat) expFromBits(a uint32) int {
	if a == 0 {
		return b.zeroExp()
	}
	e := int(a>>23) - 127 // floor(log2 a)
	if a < 1<<23 {
		e = bits.Len32(a) - 1 - 149
	}
	return b.expFromLog2(e)
}

// zeroExp is the scale exponent of a block without finite nonzero values:
// 2^-127 for MX, bias 0 for block posits.
func (b BlockFormat) zeroExp() int {
	if b.kind == blockMX {
		return -maxBlockExp
	}
	return 0
}

// expFromLog2 returns the scale exponent of a block whose largest
// magnitude a has floor(log2 a) = e.
func (b BlockFormat) expFromLog2(e int) int {
	if b.kind == blockMX {
		return min(max(e-b.EmaxElem(), -maxBlockExp), maxBlockExp)
	}
	k := min(max(b.EmaxElem()-e, -maxBlockExp), maxBlockExp) // the posit bias
	return -k
}

// blockExp32 returns the scale exponent of a float32 block and, for MX,
// whether it is a NaN block.
func (b BlockFormat) blockExp32(blk []float32) (x int, nan bool) {
	var amax uint32
	for _, v := range blk {
		a := math.Float32bits(v) & 0x7fffffff
		if a >= 0x7f800000 {
			if b.kind == blockMX {
				return 0, true
			}
			continue
		}
		amax = max(amax, a)
	}
	return b.expFromBits(amax), false
}

// blockExp64 is blockExp32 for float64 data.
func (b BlockFormat) blockExp64(blk []float64) (x int, nan bool) {
	amax := 0.0
	for _, v := range blk {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if b.kind == blockMX {
				return 0, true
			}
			continue
		}
		amax = max(amax, math.Abs(v))
	}
	if amax == 0 {
		return b.zeroExp(), false
	}
	_, e := math.Frexp(amax) // amax = f·2^e, f in [0.5, 1)
	return b.expFromLog2(e - 1), false
}

// elemLow returns the smallest element value rounding may give: -127/64
// for MXINT8 (symmetric), -max for the MX floats (saturating), -Inf for
// posits (only MXINT8's bound is enforced by the kernels; the floats
// saturate by themselves).
func (b BlockFormat) elemLow() float64 {
	switch e := b.elem.(type) {
	case Fixed:
		return -e.Max()
	case Float:
		return -e.Max()
	}
	return math.Inf(-1)
}

// roundBlock64 rounds one float64 block with scale exponent x.
func (b BlockFormat) roundBlock64(dst, src []float64, x int, nan bool) {
	if nan {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	el, lo := b.roundElem(), b.elemLow() // lo is a no-op for the saturating floats
	for i, v := range src {
		r := max(el.Round64(math.Ldexp(v, -x)), lo) // max keeps NaN
		dst[i] = math.Ldexp(r, x)
	}
}

func (b BlockFormat) roundMatrix64(dst, src []float64, rows, cols int, axis Axis) {
	K := b.block
	if axis == AlongRow {
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j += K {
				s := src[i*cols+j : i*cols+min(j+K, cols)]
				x, nan := b.blockExp64(s)
				b.roundBlock64(dst[i*cols+j:i*cols+j+len(s)], s, x, nan)
			}
		}
		return
	}
	tmp := make([]float64, min(K, rows))
	for c := 0; c < cols; c++ {
		for r0 := 0; r0 < rows; r0 += K {
			t := tmp[:min(K, rows-r0)]
			for i := range t {
				t[i] = src[(r0+i)*cols+c]
			}
			x, nan := b.blockExp64(t)
			b.roundBlock64(t, t, x, nan)
			for i, v := range t {
				dst[(r0+i)*cols+c] = v
			}
		}
	}
}

// blockKernel rounds float32 blocks of one BlockFormat with one rounding.
type blockKernel struct {
	b     BlockFormat
	elem  Format  // what elements round to at scale 1
	lo    float32 // the smallest element value (MXINT8: -127/64)
	posit bool
	stoch bool
	rng   *rand.PCG
}

func (b BlockFormat) kernel(r Rounding, rng *rand.PCG) blockKernel {
	lo := float32(math.Inf(-1))
	if _, ok := b.elem.(Fixed); ok {
		lo = float32(b.elemLow())
	}
	return blockKernel{b: b, elem: b.roundElem(), lo: lo,
		posit: b.kind == blockPosit, stoch: r == Stochastic, rng: rng}
}

// pow2f returns 2^x as a float32, for -149 <= x <= 127.
func pow2f(x int) float32 {
	if x >= -126 {
		return math.Float32frombits(uint32(x+127) << 23)
	}
	return math.Float32frombits(1 << (x + 149))
}

// factors returns the multipliers into and out of element scale of a
// block with scale exponent x; a NaN block gets the factors 1 and NaN.
func factors(x int, nan bool) (in, out float32) {
	if nan {
		return 1, float32(math.NaN())
	}
	return pow2f(-x), pow2f(x)
}

// toElem sets d[i] = s[i]·f, the values of one block at element scale.
func (k *blockKernel) toElem(d, s []float32, f float32) {
	d = d[:len(s)]
	if !k.posit {
		for i, v := range s {
			d[i] = v * f
		}
		return
	}
	for i, v := range s { // d may be s
		y := v * f
		if y == 0 && v != 0 {
			y = float32(math.Copysign(math.SmallestNonzeroFloat32, float64(v)))
		}
		d[i] = y
	}
}

// fromElem sets d[i] = d[i]·f, the rounded elements of one block back at
// their scale.
func (k *blockKernel) fromElem(d []float32, f float32) {
	switch {
	case k.posit:
		for i, v := range d {
			r := v * f
			if r == 0 && v != 0 {
				r = float32(math.Copysign(math.SmallestNonzeroFloat32, float64(v)))
			} else if math.IsInf(float64(r), 0) {
				r = float32(math.Copysign(math.MaxFloat32, float64(v)))
			}
			d[i] = r
		}
	case k.lo > -math.MaxFloat32:
		for i, v := range d {
			d[i] = max(v, k.lo) * f // max keeps NaN
		}
	default:
		for i, v := range d {
			d[i] = v * f
		}
	}
}

func (k *blockKernel) roundElems(d []float32) {
	if k.stoch {
		k.elem.RoundSliceStochastic(d, d, k.rng)
	} else {
		k.elem.RoundSlice(d, d)
	}
}

// roundRow rounds one run of values whose first block starts at its
// first element.
func (k *blockKernel) roundRow(dst, src []float32) {
	K := k.b.block
	step := max(1, blockChunk/K) * K // whole blocks per pass
	var out [blockChunk]float32
	for i := 0; i < len(src); i += step {
		s := src[i:min(i+step, len(src))]
		d := dst[i : i+len(s)]
		nb := 0
		for j := 0; j < len(s); j += K {
			blk := s[j:min(j+K, len(s))]
			in, o := factors(k.b.blockExp32(blk))
			k.toElem(d[j:], blk, in)
			out[nb] = o
			nb++
		}
		k.roundElems(d)
		for j := range nb {
			k.fromElem(d[j*K:min((j+1)*K, len(d))], out[j])
		}
	}
}

// roundColumns rounds a rows×cols matrix with blocks running down its
// columns, blockChunk columns at a time.
func (k *blockKernel) roundColumns(dst, src []float32, rows, cols int) {
	K := k.b.block
	var amax [blockChunk]uint32
	var in, out [blockChunk]float32
	for c0 := 0; c0 < cols; c0 += blockChunk {
		w := min(blockChunk, cols-c0)
		for r0 := 0; r0 < rows; r0 += K {
			r1 := min(r0+K, rows)
			am := amax[:w]
			clear(am)
			for r := r0; r < r1; r++ {
				for c, v := range src[r*cols+c0 : r*cols+c0+w] {
					a := math.Float32bits(v) & 0x7fffffff
					if k.posit && a >= 0x7f800000 {
						continue // NaR one by one
					}
					am[c] = max(am[c], a)
				}
			}
			for c, a := range am {
				if a >= 0x7f800000 {
					in[c], out[c] = factors(0, true)
				} else {
					in[c], out[c] = factors(k.b.expFromBits(a), false)
				}
			}
			for r := r0; r < r1; r++ {
				s := src[r*cols+c0 : r*cols+c0+w]
				d := dst[r*cols+c0 : r*cols+c0+w]
				for c, v := range s {
					y := v * in[c]
					if k.posit && y == 0 && v != 0 {
						y = float32(math.Copysign(math.SmallestNonzeroFloat32, float64(v)))
					}
					d[c] = y
				}
				k.roundElems(d)
				k.fromElemCols(d, out[:w])
			}
		}
	}
}

// fromElemCols is fromElem with one factor per column.
func (k *blockKernel) fromElemCols(d, f []float32) {
	f = f[:len(d)]
	switch {
	case k.posit:
		for i, v := range d {
			r := v * f[i]
			if r == 0 && v != 0 {
				r = float32(math.Copysign(math.SmallestNonzeroFloat32, float64(v)))
			} else if math.IsInf(float64(r), 0) {
				r = float32(math.Copysign(math.MaxFloat32, float64(v)))
			}
			d[i] = r
		}
	case k.lo > -math.MaxFloat32:
		for i, v := range d {
			d[i] = max(v, k.lo) * f[i]
		}
	default:
		for i, v := range d {
			d[i] = v * f[i]
		}
	}
}
