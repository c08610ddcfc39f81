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

// blockChunk is how many values (or matrix columns) one pass handles: the
// element kernels have a per-call set-up worth amortising.
const blockChunk = 1024

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
	elem  Format  // what elements round to at scale 1; nil for float elements:
	satF  Float   // float elements, saturating (held unboxed: boxing allocates per call)
	lo    float32 // the smallest element value (MXINT8: -127/64)
	posit bool
	stoch bool
	rng   *rand.PCG
	// fused: MX float elements rounded to nearest in one pass on the
	// float32 bits (mxFused); emin and m are the element's, maxBits the
	// bits of its largest value.
	fused         bool
	emin, m, emax int // emax: the element's largest binade (EmaxElem)
	maxBits       uint32
	mp            mxParams    // mxConstsOf for the vector kernels
	rp            mxRowParams // the same for the fused row kernels (block_band.go)
}

// mxParams let the vector kernels compute mxConstsOf(a) for a block
// maximum a with exponent byte E = a>>23 in [eLo, eHi], where no clamp
// applies and the constants are valid: minNorm = (E+cMN)<<23, magic's
// bits (E+cMG)<<23, maxBits = E<<23 + cMB (mod 2^32). NaN blocks (a >=
// 0x7f800000) get mxNaNBlock; other maxima (zero, subnormal, out of
// range) are left to mxConstsOf. The layout is shared with
// block_kernel_amd64.s.
type mxParams struct {
	eLo, eHi uint32
	cMN, cMG int32
	cMB      uint32
}

func (b BlockFormat) kernel(r Rounding, rng *rand.PCG) blockKernel {
	lo := float32(math.Inf(-1))
	if _, ok := b.elem.(Fixed); ok {
		lo = float32(b.elemLow())
	}
	k := blockKernel{b: b, lo: lo, posit: b.kind == blockPosit, stoch: r == Stochastic, rng: rng}
	if f, ok := b.elem.(Float); ok {
		k.satF = f
		k.satF.sat = true // as roundElem
	} else {
		k.elem = b.roundElem()
	}
	if f, ok := b.elem.(Float); ok && b.kind == blockMX && r == Nearest {
		k.fused, k.emin, k.m, k.emax = true, f.emin(), int(f.m), b.EmaxElem()
		k.maxBits = math.Float32bits(float32(f.Max()))
		// x = E-127-emax and en = emin+x need no clamp and are valid
		// (-126 <= en, en-m+23 <= 127) for E in [1+emax-emin,
		// 231+m+emax-emin]; emin <= 0, so the lower clamp of x at -127
		// only ever meets an invalid en.
		k.mp = mxParams{
			eLo: uint32(max(1, 1+k.emax-k.emin)),
			eHi: uint32(min(254, 231+k.m+k.emax-k.emin)),
			cMN: int32(k.emin - k.emax),
			cMG: int32(k.emin - k.emax - k.m + 23),
			cMB: k.maxBits - uint32(127+k.emax)<<23,
		}
		k.rp = k.rowParams()
	}
	return k
}

// mxConsts are the constants of the fused MX kernel for one block with
// scale exponent x: the block's elements form float(e,m) with the
// exponent range shifted by x, whose smallest normal is 2^(emin+x).
type mxConsts struct {
	minNorm uint32 // bits of the smallest normal
	magic   float32
	maxBits uint32 // bits of the largest value
	nan     uint32 // or-ed into every result: 0, or a quiet NaN's bits for a NaN block
}

// mxNaNBlock are the constants of a NaN block: every result is NaN.
var mxNaNBlock = mxConsts{minNorm: 0, maxBits: 0, nan: 0x7fc00000}

// mxConstsFor returns the constants for scale exponent x, or false if the
// shifted smallest normal is below float32's or so large that magic is
// not a float32 (the two-pass path then rounds the block).
func (k *blockKernel) mxConstsFor(x int) (mxConsts, bool) {
	en := k.emin + x
	if en < -126 || en-k.m+23 > 127 {
		return mxConsts{}, false
	}
	return mxConsts{
		minNorm: uint32(en+127) << 23,
		magic:   pow2f(en - k.m + 23), // adding it rounds to the subnormal quantum 2^(en-m)
		maxBits: k.maxBits + uint32(x)<<23,
	}, true
}

// mxConstsOf returns mxConstsFor(b.expFromBits(a)), or mxNaNBlock for a
// NaN block (a >= 0x7f800000), for the largest magnitude bits a of a
// block. A normal a, the usual case, takes a few integer operations, with
// expFromBits and mxConstsFor written out.
func (k *blockKernel) mxConstsOf(a uint32) (mxConsts, bool) {
	switch {
	case a >= 0x7f800000:
		return mxNaNBlock, true
	case a < 1<<23: // zero or subnormal
		return k.mxConstsFor(k.b.expFromBits(a))
	}
	x := min(max(int(a>>23)-127-k.emax, -maxBlockExp), maxBlockExp)
	en := k.emin + x
	if en < -126 || en-k.m+23 > 127 {
		return mxConsts{}, false
	}
	return mxConsts{
		minNorm: uint32(en+127) << 23,
		magic:   math.Float32frombits(uint32(en-k.m+23+127) << 23), // pow2f(en-m+23), a normal
		maxBits: k.maxBits + uint32(x)<<23,
	}, true
}

// mxRound rounds the float32 bits b to the block's grid: to nearest even
// on the bits where the result is normal, by adding and subtracting magic
// below, saturating at maxBits.
func (c *mxConsts) round(b uint32, d uint32) uint32 {
	a := b & 0x7fffffff
	if a < c.minNorm {
		r := math.Float32bits(math.Float32frombits(a) + c.magic - c.magic)
		return r | b&0x80000000 | c.nan
	}
	r := (a + (1<<(d-1) - 1) + (a>>d)&1) &^ (1<<d - 1)
	if r > c.maxBits {
		r = c.maxBits
	}
	return r | b&0x80000000 | c.nan
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
			d[i] = positOut(v, v*f)
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
	switch {
	case k.elem == nil && k.stoch:
		k.satF.RoundSliceStochastic(d, d, k.rng)
	case k.elem == nil:
		k.satF.RoundSlice(d, d)
	case k.stoch:
		k.elem.RoundSliceStochastic(d, d, k.rng)
	default:
		k.elem.RoundSlice(d, d)
	}
}

// blockScratch is the working memory of the float32 kernels for one
// matrix: RoundMatrix keeps it on its stack, so that it is zeroed once per
// matrix rather than once per row or chunk.
type blockScratch struct {
	amax    [blockChunk]uint32  // each block's (rows) or column's largest magnitude bits
	col     mxCols              // fused: each block's (rows) or column's constants
	in, out [blockChunk]float32 // two-pass: each block's or column's factors
}

// mxCols are the fused kernel's constants of up to blockChunk columns,
// field by field (mxConsts' fields as arrays, which the vector kernel
// loads eight columns at a time).
type mxCols struct {
	minNorm, magic, maxBits, nan [blockChunk]uint32 // magic: float32 bits
}

func (c *mxCols) set(i int, m mxConsts) {
	c.minNorm[i], c.magic[i], c.maxBits[i], c.nan[i] = m.minNorm, math.Float32bits(m.magic), m.maxBits, m.nan
}

func (c *mxCols) get(i int) mxConsts {
	return mxConsts{minNorm: c.minNorm[i], magic: math.Float32frombits(c.magic[i]), maxBits: c.maxBits[i], nan: c.nan[i]}
}

// absMaxGo returns the largest |v| of s as float32 bits; with finite set,
// ±Inf and NaN are left out (block posits' NaR goes one by one), else they
// make the result >= 0x7f800000 (an MX NaN block).
func absMaxGo(s []float32, finite bool) uint32 {
	var m uint32
	for _, v := range s {
		a := math.Float32bits(v) & 0x7fffffff
		if finite && a >= 0x7f800000 {
			continue
		}
		m = max(m, a)
	}
	return m
}

// absMaxColsGo sets am[c] = max(am[c], |s[c]|) as absMaxGo does.
func absMaxColsGo(am []uint32, s []float32, finite bool) {
	am = am[:len(s)]
	for c, v := range s {
		a := math.Float32bits(v) & 0x7fffffff
		if finite && a >= 0x7f800000 {
			continue
		}
		am[c] = max(am[c], a)
	}
}

// expNaN returns the scale exponent of a block whose largest magnitude
// has the bits a (from absMax*), and whether it is an MX NaN block.
func (k *blockKernel) expNaN(a uint32) (int, bool) {
	if a >= 0x7f800000 {
		return 0, true
	}
	return k.b.expFromBits(a), false
}

// roundRow rounds one run of values whose first block starts at its
// first element.
func (k *blockKernel) roundRow(dst, src []float32, sc *blockScratch) {
	K := k.b.block
	step := max(1, blockChunk/K) * K // whole blocks per pass
	for i := 0; i < len(src); i += step {
		s := src[i:min(i+step, len(src))]
		d := dst[i : i+len(s)]
		if k.fused && K == 32 {
			// Whole groups of blocks in one vector pass each. They
			// stop at a group with a block that needs more (a NaN
			// block, an extreme scale), and the rest of the chunk goes
			// the general way: the blocks done are ones both ways
			// round alike, and the rest decide the chunk's way as all
			// its blocks would (a NaN block's NaNs keep their signs
			// only on the fused way).
			j := mxRowFast(d, s, &k.rp, &sc.amax) * K
			if j == len(s) || len(s)-j < K && k.roundLastBlock(d[j:], s[j:]) {
				continue
			}
			s, d = s[j:], d[j:]
		}
		nb := (len(s) + K - 1) / K
		amax := sc.amax[:nb]
		blockAbsMax(amax, s, K, k.posit)
		if k.fused && k.roundRowFused(d, s, amax, sc) {
			continue
		}
		in, out := sc.in[:nb], sc.out[:nb]
		for j, a := range amax {
			in[j], out[j] = factors(k.expNaN(a))
		}
		j0 := 0
		if k.posit {
			j0 = positScaleBlocks(d, s, K, in, false)
		}
		for j := j0; j < nb; j++ {
			k.toElem(d[j*K:], s[j*K:min((j+1)*K, len(s))], in[j])
		}
		k.roundElems(d)
		j0 = 0
		if k.posit {
			j0 = positScaleBlocks(d, d, K, out, true)
		}
		for j := j0; j < nb; j++ {
			k.fromElem(d[j*K:min((j+1)*K, len(d))], out[j])
		}
	}
}

// roundColumns rounds a rows×cols matrix with blocks running down its
// columns, blockChunk columns at a time.
func (k *blockKernel) roundColumns(dst, src []float32, rows, cols int, sc *blockScratch) {
	K := k.b.block
	for c0 := 0; c0 < cols; c0 += blockChunk {
		w := min(blockChunk, cols-c0)
		for r0 := 0; r0 < rows; r0 += K {
			k.roundColumnBand(dst, src, cols, c0, w, r0, min(r0+K, rows), sc)
		}
	}
}

// roundColumnBand rounds rows r0..r1 (one block high) of columns
// c0..c0+w (w <= blockChunk) of a matrix with cols columns.
func (k *blockKernel) roundColumnBand(dst, src []float32, cols, c0, w, r0, r1 int, sc *blockScratch) {
	am := sc.amax[:w]
	clear(am)
	// MX counts every value (a non-finite one makes a NaN column): the
	// band kernel takes all rows in one call.
	if k.posit || !absMaxBand(am, src[r0*cols+c0:], r1-r0, cols) {
		for r := r0; r < r1; r++ {
			colsAbsMax(am, src[r*cols+c0:r*cols+c0+w], k.posit)
		}
	}
	if k.fused && k.roundBandFused(dst, src, am, cols, c0, r0, r1, sc) {
		return
	}
	in, out := sc.in[:w], sc.out[:w]
	for c, a := range am {
		in[c], out[c] = factors(k.expNaN(a))
	}
	for r := r0; r < r1; r++ {
		s := src[r*cols+c0 : r*cols+c0+w]
		d := dst[r*cols+c0 : r*cols+c0+w]
		c0 := 0
		if k.posit {
			c0 = positScaleCols(d, s, in, false)
		}
		for c := c0; c < len(s); c++ {
			v := s[c]
			y := v * in[c]
			if k.posit && y == 0 && v != 0 {
				y = float32(math.Copysign(math.SmallestNonzeroFloat32, float64(v)))
			}
			d[c] = y
		}
		k.roundElems(d)
		k.fromElemCols(d, out)
	}
}

// fromElemCols is fromElem with one factor per column.
func (k *blockKernel) fromElemCols(d, f []float32) {
	f = f[:len(d)]
	switch {
	case k.posit:
		for i := positScaleCols(d, d, f, true); i < len(d); i++ {
			v := d[i]
			d[i] = positOut(v, v*f[i])
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

// positOut returns r = v·2^x, a rounded posit element v back at its
// block's scale, as Posit.Round resolves values beyond float32: a nonzero
// value that underflows gives the smallest float32 of its sign, one that
// overflows the largest.
func positOut(v, r float32) float32 {
	a := math.Float32bits(r) & 0x7fffffff
	if a != 0 && a < 0x7f800000 || v == 0 || v != v {
		return r
	}
	sign := math.Float32bits(v) & 0x80000000
	if a == 0 {
		return math.Float32frombits(sign | 1)
	}
	return math.Float32frombits(sign | 0x7f7fffff)
}

// roundRowFused rounds the blocks of s, whose largest magnitudes have the
// bits amax, into d with the fused kernel and reports true, or reports
// false, having written nothing, if some block needs the two-pass path.
func (k *blockKernel) roundRowFused(d, s []float32, amax []uint32, sc *blockScratch) bool {
	K := k.b.block
	cc := &sc.col
	if !k.mxConstsAll(cc, amax) {
		return false
	}
	dr := uint32(23 - k.m)
	j := mxRoundBlocks(d, s, K, cc, dr) // whole blocks, vectorised where it can
	for ; j < len(amax); j++ {
		lo, hi := j*K, min((j+1)*K, len(s))
		c := cc.get(j)
		for i, v := range s[lo:hi] {
			d[lo+i] = math.Float32frombits(c.round(math.Float32bits(v), dr))
		}
	}
	return true
}

// mxConstsAll sets cc's first len(am) entries to mxConstsOf of each
// maximum in am, vectorised where it can, and reports whether all are
// valid.
func (k *blockKernel) mxConstsAll(cc *mxCols, am []uint32) bool {
	// The vector kernels take whole vectors of maxima: am is a prefix of
	// blockScratch.amax, so it is padded to a multiple of 16 with its
	// first entry, which cannot stop the kernel before am[0] would (the
	// padding's constants land in entries of cc no one reads).
	v := am
	if n := len(am); n > 0 && n%16 != 0 && cap(am) >= n+16-n%16 {
		v = am[:n+16-n%16]
		for i := n; i < len(v); i++ {
			v[i] = am[0]
		}
	}
	for c := mxConstsVec(cc, v, &k.mp); c < len(am); c++ {
		m, ok := k.mxConstsOf(am[c])
		if !ok {
			return false
		}
		cc.set(c, m)
	}
	return true
}

// roundBandFused rounds rows r0..r1 of columns c0..c0+len(am) with the
// fused kernel, given each column's largest magnitude bits am, and reports
// true, or reports false, having written nothing, if some column needs
// the two-pass path.
func (k *blockKernel) roundBandFused(dst, src []float32, am []uint32, cols, c0, r0, r1 int, sc *blockScratch) bool {
	cc := &sc.col
	if !k.mxConstsAll(cc, am) {
		return false
	}
	dr := uint32(23 - k.m)
	w := len(am)
	if mxRoundBand(dst[r0*cols+c0:], src[r0*cols+c0:], w, r1-r0, cols, cc, dr) {
		return true
	}
	for r := r0; r < r1; r++ {
		s := src[r*cols+c0 : r*cols+c0+w]
		d := dst[r*cols+c0 : r*cols+c0+w]
		c := mxRoundCols(d, s, cc, dr) // vectorised where it can
		for ; c < w; c++ {
			m := cc.get(c)
			d[c] = math.Float32frombits(m.round(math.Float32bits(s[c]), dr))
		}
	}
	return true
}

// The portable kernels; block_kernel_amd64.go vectorises them.

// blockAbsMaxGo sets amax[j] to absMaxGo of block j of s (blocks of K,
// the last possibly shorter).
func blockAbsMaxGo(amax []uint32, s []float32, K int, finite bool) {
	for j := range amax {
		amax[j] = absMaxGo(s[j*K:min((j+1)*K, len(s))], finite)
	}
}

// mxRoundBlocksGo rounds the first n whole blocks of s into d, block j
// with cc's entry j.
func mxRoundBlocksGo(d, s []float32, K, n int, cc *mxCols, dr uint32) {
	for j := range n {
		c := cc.get(j)
		for i, v := range s[j*K : (j+1)*K] {
			d[j*K+i] = math.Float32frombits(c.round(math.Float32bits(v), dr))
		}
	}
}

// mxRoundColsGo rounds s into d, element c with column c's constants.
func mxRoundColsGo(d, s []float32, cc *mxCols, dr uint32) {
	for c, v := range s {
		m := cc.get(c)
		d[c] = math.Float32frombits(m.round(math.Float32bits(v), dr))
	}
}
