package gemm

import (
	"math"
	"math/bits"

	"github.com/positgan/positgan/quant"
)

// expOf returns the exponent of the leading bit of a finite nonzero
// float32 with bits b, and of its lowest set bit.
func expOf(b uint32) (hi, lo int) {
	e := int(b >> 23 & 0xff)
	m := b & 0x7fffff
	if e == 0 {
		return -149 + bits.Len32(m) - 1, -149 + bits.TrailingZeros32(m)
	}
	return e - 127, e - 127 - 23 + bits.TrailingZeros32(m|1<<23)
}

// scan fills h from s (rows×cols, stride ld).
func (h *expHist) scan(s []float32, rows, cols, ld int) {
	*h = expHist{}
	for r := 0; r < rows; r++ {
		for _, x := range s[r*ld : r*ld+cols] {
			b := math.Float32bits(x) &^ (1 << 31)
			if b == 0 || b >= 0x7f800000 {
				continue // zero, NaN or ±Inf
			}
			hi, lo := expOf(b)
			i := hi + 149
			if !h.seen[i] || int16(lo) < h.lsb[i] {
				h.lsb[i] = int16(lo)
			}
			h.seen[i] = true
		}
	}
}

// expRange bounds the exponents of a float32 matrix: top holds the bits
// of its largest magnitude, and key the least, over its finite nonzero
// entries, of the biased exponent plus the trailing zeros of the
// significand (keyNone+ if there is none).
type expRange struct{ top, key uint32 }

const keyNone = 1 << 10

func (r expRange) finite() bool  { return r.key < keyNone }
func (r expRange) special() bool { return r.top >= 0x7f800000 }

// span is an upper bound on the exponent of the leading bit of the
// largest entry, plus one, less the exponent of the lowest significant
// bit of any entry: the bits a sum of entries needs. Subnormals count
// one bit more than they hold.
func (r expRange) span() int {
	hi := int(r.top>>23) - 127
	lsb := int(r.key) - 150
	return hi + 1 - lsb
}

// convertRange sets dst (row stride ldd) to s (rows×cols, stride ld) as
// float64 and returns its exponent range, without branches on the data.
func convertRange(dst []float64, ldd int, s []float32, rows, cols, ld int) expRange {
	r := expRange{key: 1<<32 - 1}
	if cols == 0 {
		return r
	}
	for i := 0; i < rows; i++ {
		d, row := dst[i*ldd:i*ldd+cols], s[i*ld:i*ld+cols]
		var top, key uint32
		switch {
		case hasQuireAVX512:
			top, key = convertRowAVX512(&d[0], &row[0], cols)
			key -= convertKeyBias
		case hasQuireAVX2 && cols >= 8:
			n := cols &^ 7
			top, key = convertRowAVX2(&d[0], &row[0], n)
			key -= convertKeyBias
			t, k := convertRow(d[n:], row[n:])
			top, key = max(top, t), min(key, k)
		default:
			top, key = convertRow(d, row)
		}
		r.top, r.key = max(r.top, top), min(r.key, key)
	}
	return r
}

// convertKeyBias is the offset convertRowAVX512's key carries over
// convertRow's: the assembly (quire_amd64.s) reads the trailing zeros off
// a float32's biased exponent and leaves the bias, 127, in; convertRange
// subtracts it.
const convertKeyBias = 127

// convertRow sets d to s as float64 and returns the exponent range of s.
func convertRow(d []float64, s []float32) (top, key uint32) {
	key = 1<<32 - 1
	d = d[:len(s)]
	for j, x := range s {
		d[j] = float64(x)
		b := math.Float32bits(x) &^ (1 << 31)
		top = max(top, b)
		// Zeros and non-finite values (b-1 or b+2^23 past 2^31) get
		// keyNone added.
		none := ((b - 1) | (b + 1<<23)) >> 31 << 10
		key = min(key, b>>23+uint32(bits.TrailingZeros32(b|1<<23))+none)
	}
	return top, key
}

// extract copies the entries of s whose exponent is in the band into dst
// (rows×cols, row stride ldd) as float64, and zeros elsewhere. Non-finite values
// belong to every band that spans all exponents.
func (bd band) extract(dst []float64, ldd int, s []float32, rows, cols, ld int) {
	all := bd.lo == -149 && bd.hi == 127
	for r := 0; r < rows; r++ {
		d := dst[r*ldd : r*ldd+cols]
		for j, x := range s[r*ld : r*ld+cols] {
			b := math.Float32bits(x) &^ (1 << 31)
			if all || b == 0 {
				d[j] = float64(x)
				continue
			}
			if e, _ := expOf(b); b < 0x7f800000 && e >= bd.lo && e <= bd.hi {
				d[j] = float64(x)
			} else {
				d[j] = 0
			}
		}
	}
}

// combine sets c[i][j] to the exact sum of the parts' (i, j) elements,
// rounded once to f. special means the parts hold a plain IEEE result.
//
// The exact sum is first rounded to odd in float64 (53 bits) and then to
// odd in float32 (24 bits), and the row is rounded to f with the format's
// vectorised RoundSlice: rounding to odd with p+2 or more bits and then to
// nearest with p bits is one correct rounding, and every format rounded
// to here with at most 22 bits of code has fewer than 22 significant
// bits. Sums outside float32's normal range are rounded from float64.
func combine(f quant.Format, c []float32, ldc int, parts []float64, m, n, np int, special bool) {
	mn := m * n
	var q quire
	q.lo, q.hi = len(q.limb), -1
	viaFloat32 := f == nil || f.Bits() <= 22
	if np == 1 && !special && f != nil && viaFloat32 {
		combineOne(f, c, ldc, parts, m, n)
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		far := false // a sum outside float32's normal range
		for j := range row {
			x := parts[i*n+j]
			switch {
			case special || np == 1:
				// exact (or IEEE special)
			case np == 2:
				y := parts[mn+i*n+j]
				s := x + y
				bb := s - x
				x = toOdd(s, (x-(s-bb))+(y-bb))
			default:
				q.reset()
				for p := 0; p < np; p++ {
					q.add(parts[p*mn+i*n+j])
				}
				x = q.value(true)
			}
			if a := math.Abs(x); f != nil && (a >= 0x1p127 || (a != 0 && a < 0x1p-126)) || !viaFloat32 {
				far = true
			}
			if f == nil {
				row[j] = float32(x)
			} else {
				row[j] = toOdd32(x)
			}
		}
		if f == nil {
			continue
		}
		if !far {
			f.RoundSlice(row, row)
			continue
		}
		for j := range row {
			// Recompute the few far elements from float64.
			x := parts[i*n+j]
			if np > 1 && !special {
				if np == 2 {
					y := parts[mn+i*n+j]
					s := x + y
					bb := s - x
					x = toOdd(s, (x-(s-bb))+(y-bb))
				} else {
					q.reset()
					for p := 0; p < np; p++ {
						q.add(parts[p*mn+i*n+j])
					}
					x = q.value(true)
				}
			}
			row[j] = roundTo[float32](f, x)
		}
	}
}

// combineOne is combine for one exact part and a format of at most 22
// bits: the common case, in one tight pass per row.
func combineOne(f quant.Format, c []float32, ldc int, parts []float64, m, n int) {
	const (
		lo = 1023 - 126 // the biased float64 exponent of float32's least normal
		hi = 1023 + 126 // and its greatest below 2^127
	)
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		src := parts[i*n : (i+1)*n]
		var emin, emax uint64
		switch {
		case hasQuireAVX512 && n > 0:
			emin, emax = combineRowAVX512(&row[0], &src[0], n)
		case hasQuireAVX2 && n >= 4:
			emin, emax = combineRowAVX2Go(row, src)
		default:
			emin, emax = toOddRow(row, src)
		}
		if emin < lo || emax > hi {
			// Outside float32's normal range (or about to overflow).
			for j, x := range src {
				row[j] = roundTo[float32](f, x)
			}
			continue
		}
		f.RoundSlice(row, row)
	}
}

// toOddRow sets dst to src rounded to odd in float32, without branches:
// each float64 significand cut to float32's 24 bits (toward zero), with
// the last bit set if anything was cut off; this is exact for values in
// float32's normal range. It returns the least and greatest biased
// exponents of the nonzero values of src (emin = 2^64-1 if there is none)
// to tell whether they all are.
func toOddRow(dst []float32, src []float64) (emin, emax uint64) {
	emin = 1<<64 - 1
	dst = dst[:len(src)]
	for j, x := range src {
		xb := math.Float64bits(x)
		cut := xb & (1<<29 - 1)
		r := math.Float32bits(float32(math.Float64frombits(xb-cut))) | uint32((cut+1<<29-1)>>29)
		dst[j] = math.Float32frombits(r)
		a := xb &^ (1 << 63)
		e := a >> 52
		// Zeros count as the greatest exponent for emin.
		nz := (a | -a) >> 63
		emin, emax = min(emin, e|(nz-1)), max(emax, e)
	}
	return emin, emax
}

// combineRowAVX2Go is toOddRow by combineRowAVX2, for len(src) >= 4.
func combineRowAVX2Go(dst []float32, src []float64) (emin, emax uint64) {
	n := len(src) &^ 3
	emin, emax = combineRowAVX2(&dst[0], &src[0], n)
	if emin == 2048 {
		emin = 1<<64 - 1 // no nonzero value
	}
	e0, e1 := toOddRow(dst[n:len(src)], src[n:])
	return min(emin, e0), max(emax, e1)
}

// toOdd32 rounds x to float32 to odd (NaN and Inf pass through).
func toOdd32(x float64) float32 {
	r := float32(x)
	if float64(r) == x || math.Float32bits(r)&1 == 1 || math.IsInf(float64(r), 0) || r != r {
		return r
	}
	if float64(r) < x {
		return math.Nextafter32(r, float32(math.Inf(1)))
	}
	return math.Nextafter32(r, float32(math.Inf(-1)))
}
