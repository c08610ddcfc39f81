package sparsity

import "math"

// Axis says which way the blocks of a row-major matrix run: along the
// reduction dimension of the product that reads the matrix.
type Axis uint8

const (
	// AlongRow: a block is M consecutive elements of one row, as for a
	// weight matrix W (Out × K) in the product W·X, whose rows are the
	// dot products' operands: a Linear layer's (Out, In) weights, a
	// convolution's (OutC, InC·K·K).
	AlongRow Axis = iota
	// AlongColumn: a block is M consecutive rows of one column, as for a
	// weight matrix read transposed (Wᵀ·X), e.g. a transposed
	// convolution's (InC, OutC·K·K) weights, whose products sum over InC.
	AlongColumn
)

// Float is the element type of the slices masked.
type Float interface{ ~float32 | ~float64 }

const errLength = "sparsity: slice lengths differ"

// Mask sets keep, a rows × cols row-major matrix, to the N:M mask of the
// scores score (of the same shape) with blocks along axis: in every block
// of p.M consecutive values along the axis, keep is true for the p.N
// values of highest score, ties going to the lower index, and false for
// the others. NaN scores count as −∞.
//
// When the axis length (cols along rows, rows along columns) is not a
// multiple of M, the last block of each line holds r < M values and keeps
// min(N, r) of them: the block is padded logically with M − r values that
// score below every real one, so the padding is never kept and the
// structure (at most N non-zeros in M) holds for the padded block. A dense
// p keeps every value.
//
// Mask panics if the lengths are not rows·cols or p is not valid.
func Mask(keep []bool, score []float64, rows, cols int, p Pattern, axis Axis) {
	if rows < 0 || cols < 0 || len(keep) != rows*cols || len(score) != rows*cols {
		panic(errLength)
	}
	if keepAll(keep, p) {
		return
	}
	// A line is one row (AlongRow) or one column (AlongColumn); step is
	// the distance between neighbours along it.
	lines, length, lineStep, step := geometry(rows, cols, axis)
	for l := range lines {
		for b := 0; b < length; b += p.M {
			maskBlock(keep, score, l*lineStep+b*step, step, min(p.M, length-b), p.N)
		}
	}
}

// maskBlock masks the block of r values at off, off+step, ...: value a is
// kept if fewer than n values of the block rank above it (higher score,
// or equal score and lower index). r ≤ MaxM, so counting is as fast as
// sorting.
func maskBlock(keep []bool, score []float64, off, step, r, n int) {
	if n >= r {
		for a := range r {
			keep[off+a*step] = true
		}
		return
	}
	var s [MaxM]float64
	for a := range r {
		v := score[off+a*step]
		if v != v {
			v = math.Inf(-1)
		}
		s[a] = v
	}
	for a := range r {
		rank := 0
		for b := range r {
			if s[b] > s[a] || (s[b] == s[a] && b < a) {
				rank++
			}
		}
		keep[off+a*step] = rank < n
	}
}

// Scores sets dst[i] to s's score of w[i] under key k and returns dst. It
// lets a Scorer, which works on float64, score float32 values.
func Scores[T Float](dst []float64, w []T, s Scorer, k Key) []float64 {
	if len(dst) != len(w) {
		panic(errLength)
	}
	for i, v := range w {
		dst[i] = float64(v)
	}
	s(dst, dst, k)
	return dst
}

// MaskValues sets keep to the N:M mask of the rows × cols matrix w scored
// by s under key k (see Mask); scratch, grown as needed, holds the scores.
// It returns scratch for reuse.
func MaskValues[T Float](keep []bool, w []T, rows, cols int, p Pattern, axis Axis, s Scorer, k Key, scratch []float64) []float64 {
	if len(w) != len(keep) {
		panic(errLength)
	}
	if p.IsDense() {
		if err := p.Validate(); err != nil {
			panic(err)
		}
		for i := range keep {
			keep[i] = true
		}
		return scratch
	}
	if cap(scratch) < len(w) {
		scratch = make([]float64, len(w))
	}
	scratch = scratch[:len(w)]
	Mask(keep, Scores(scratch, w, s, k), rows, cols, p, axis)
	return scratch
}

// Apply sets dst[i] to src[i] where keep[i], and to zero elsewhere, and
// returns dst. dst and src may be the same slice.
func Apply[T Float](dst, src []T, keep []bool) []T {
	if len(dst) != len(src) || len(keep) != len(src) {
		panic(errLength)
	}
	if d, ok := any(dst).([]float32); ok {
		apply32(d, any(src).([]float32), keep)
		return dst
	}
	for i, k := range keep {
		if k {
			dst[i] = src[i]
		} else {
			dst[i] = 0
		}
	}
	return dst
}

// apply32 is Apply for float32 without branches (a mask is as
// unpredictable as the weights): the bits ANDed with all ones or zero.
func apply32(dst, src []float32, keep []bool) {
	src = src[:len(keep)]
	dst = dst[:len(keep)]
	for i, k := range keep {
		var m uint32
		if k {
			m = ^uint32(0)
		}
		dst[i] = math.Float32frombits(math.Float32bits(src[i]) & m)
	}
}

// absKey is the key of maskAbs32 of the value v at index a of its block.
func absKey(v float32, a int) uint64 {
	bits := math.Float32bits(v) &^ (1 << 31)
	key := uint64(bits) + 1
	if bits > 0x7f800000 { // NaN
		key = 0
	}
	return key<<4 | uint64(MaxM-1-a)
}

// maskAbs32Row is maskAbs32 for blocks of 2, 4 or 8 along rows, with
// fixed bounds (2 and 4 unrolled): the masks of training.
func maskAbs32Row(keep []bool, w []float32, lines, length, lineStep, n, m int) {
	nn := uint64(n)
	for l := range lines {
		row, krow := w[l*lineStep:l*lineStep+length], keep[l*lineStep:l*lineStep+length]
		full := length - length%m
		if m == 2 {
			for b := 0; b < full; b += 2 {
				k0, k1 := absKey(row[b], 0), absKey(row[b+1], 1)
				krow[b] = (k0-k1)>>63 < nn
				krow[b+1] = (k1-k0)>>63 < nn
			}
		} else if m == 8 {
			for b := 0; b < full; b += 8 {
				w8, k8 := row[b:b+8:b+8], krow[b:b+8:b+8]
				var k [8]uint64
				for a := range k {
					k[a] = absKey(w8[a], a)
				}
				for a := range k {
					ka, rank := k[a], uint64(0)
					for c := range k {
						rank += (ka - k[c]) >> 63
					}
					k8[a] = rank < nn
				}
			}
		} else {
			for b := 0; b < full; b += 4 {
				w4, k4 := row[b:b+4:b+4], krow[b:b+4:b+4]
				k0, k1, k2, k3 := absKey(w4[0], 0), absKey(w4[1], 1), absKey(w4[2], 2), absKey(w4[3], 3)
				k4[0] = (k0-k1)>>63+(k0-k2)>>63+(k0-k3)>>63 < nn
				k4[1] = (k1-k0)>>63+(k1-k2)>>63+(k1-k3)>>63 < nn
				k4[2] = (k2-k0)>>63+(k2-k1)>>63+(k2-k3)>>63 < nn
				k4[3] = (k3-k0)>>63+(k3-k1)>>63+(k3-k2)>>63 < nn
			}
		}
		if full < length { // the partial block: the general loop
			maskAbs32Any(krow[full:], row[full:], 1, length-full, 0, 1, n, m)
		}
	}
}

// Kept returns how many values keep keeps.
func Kept(keep []bool) int {
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	return n
}

// Conforms reports whether the rows × cols matrix w has at most p.N
// non-zero values in every block of p.M along axis (the last, partial
// block of a line included: at most min(N, r) of r). Every matrix conforms
// to a dense p. It panics if len(w) is not rows·cols.
func Conforms[T Float](w []T, rows, cols int, p Pattern, axis Axis) bool {
	if rows < 0 || cols < 0 || len(w) != rows*cols {
		panic(errLength)
	}
	if p.IsDense() {
		return true
	}
	lines, length, lineStep, step := geometry(rows, cols, axis)
	for l := range lines {
		for b := 0; b < length; b += p.M {
			nz := 0
			for a := range min(p.M, length-b) {
				if w[l*lineStep+(b+a)*step] != 0 {
					nz++
				}
			}
			if nz > p.N {
				return false
			}
		}
	}
	return true
}

// MaskAbs sets keep to the mask MaskValues gives with the Abs scorer
// (the default), without converting w to float64 scores: the training
// path's fast case.
func MaskAbs[T Float](keep []bool, w []T, rows, cols int, p Pattern, axis Axis) {
	if rows < 0 || cols < 0 || len(keep) != rows*cols || len(w) != rows*cols {
		panic(errLength)
	}
	if keepAll(keep, p) {
		return
	}
	lines, length, lineStep, step := geometry(rows, cols, axis)
	if w32, ok := any(w).([]float32); ok {
		maskAbs32(keep, w32, lines, length, lineStep, step, p.N, p.M)
		return
	}
	for l := range lines {
		for b := 0; b < length; b += p.M {
			maskBlockAbs(keep, w, l*lineStep+b*step, step, min(p.M, length-b), p.N)
		}
	}
}

// maskAbs32 is MaskAbs for float32 on integer keys: a value's key is
// |w|'s bits plus one (0 for NaN, so NaN ranks as −∞), shifted left by 4
// with 15 − its index in the block below, so that keys are distinct,
// their order is the mask's (score, then lower index) and a value's rank
// is the number of larger keys, counted without branches: keys are below
// 2^37, so ka − kc wraps to a number with its top bit set exactly when
// kc > ka. (Comparisons of random weights are what a branch predictor
// cannot learn; a branch per comparison costs five times the arithmetic.)
func maskAbs32(keep []bool, w []float32, lines, length, lineStep, step, n, m int) {
	if step == 1 && (m == 2 || m == 4 || m == 8) {
		maskAbs32Row(keep, w, lines, length, lineStep, n, m)
		return
	}
	maskAbs32Any(keep, w, lines, length, lineStep, step, n, m)
}

// maskAbs32Any is maskAbs32 for any block size and direction.
func maskAbs32Any(keep []bool, w []float32, lines, length, lineStep, step, n, m int) {
	var k [MaxM]uint64
	for l := range lines {
		for b := 0; b < length; b += m {
			off, r := l*lineStep+b*step, min(m, length-b)
			if n >= r {
				for a := range r {
					keep[off+a*step] = true
				}
				continue
			}
			for a := range r {
				bits := math.Float32bits(w[off+a*step]) &^ (1 << 31)
				key := uint64(bits) + 1
				if bits > 0x7f800000 { // NaN
					key = 0
				}
				k[a] = key<<4 | uint64(MaxM-1-a)
			}
			ks := k[:r]
			for a, ka := range ks {
				rank := uint64(0)
				for _, kc := range ks {
					rank += (ka - kc) >> 63
				}
				keep[off+a*step] = rank < uint64(n)
			}
		}
	}
}

// maskBlockAbs is maskBlock with the scores |w| (NaN as −∞).
func maskBlockAbs[T Float](keep []bool, w []T, off, step, r, n int) {
	if n >= r {
		for a := range r {
			keep[off+a*step] = true
		}
		return
	}
	var s [MaxM]T
	for a := range r {
		v := w[off+a*step]
		switch {
		case v != v:
			v = T(math.Inf(-1))
		case v < 0:
			v = -v
		}
		s[a] = v
	}
	for a := range r {
		rank := 0
		for b := range r {
			if s[b] > s[a] || (s[b] == s[a] && b < a) {
				rank++
			}
		}
		keep[off+a*step] = rank < n
	}
}

// geometry returns how a rows × cols matrix is walked along axis: the
// number of lines (rows along AlongRow, columns along AlongColumn), their
// length, the distance between the starts of neighbouring lines and the
// distance between neighbours along a line.
func geometry(rows, cols int, axis Axis) (lines, length, lineStep, step int) {
	if axis == AlongColumn {
		return cols, rows, 1, cols
	}
	return rows, cols, cols, 1
}

// keepAll panics if p is not valid and, for a dense p, keeps every value
// and reports true: what every mask does before its blocks.
func keepAll(keep []bool, p Pattern) bool {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	if !p.IsDense() {
		return false
	}
	for i := range keep {
		keep[i] = true
	}
	return true
}
