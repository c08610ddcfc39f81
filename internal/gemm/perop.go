package gemm

import (
	"math"
	"runtime"

	"github.com/positgan/positgan/quant"
)

// PerOpWorkspace computes per-op GEMMs (see PerOpGemm) of float32 data
// fast when the accumulation format has at most 8 bits and each operand
// matrix holds at most 256 distinct values (operands rounded to 8-bit
// formats): values become byte indices, every product rounding is a
// lookup in a 256×256 table built for the operands' value sets, and every
// rounded addition a lookup in a 256×256 table of the format. Both tables
// come from the format's arithmetic (quant.ArithmeticOf), so a format
// with its own add or multiply gets them here too. The lookups of 64
// columns' sums advance together in vector registers (gathers, and byte
// permutes for the products and the sums' indices where the CPU has
// AVX-512 VBMI; see
// perop_amd64.s and POSITGAN_CPU), and the rows are split over the cores.
// A wider accumulation format calls its arithmetic for every sum, as the
// reference kernel does, with the rows split over the cores. It keeps its
// tables and buffers between calls and gives the same bits as PerOpGemm's
// reference kernel, whatever the kernel level and number of cores.
//
// A PerOpWorkspace must not be used by two goroutines at once.
type PerOpWorkspace struct {
	f      quant.Format     // the format sum and vals are for
	ar     quant.Arithmetic // f's arithmetic (quant.ArithmeticOf)
	vals   []float32        // the format's values, by index
	index  valueSet         // the format's values' indices, by float32 bits
	nanIdx int              // index of NaN, or -1
	sum    []uint8          // [s<<8|p]: index of R(vals[s] + vals[p])
	prod   []uint8          // [a<<8|b]: index of R(va[a]·vb[b])
	ai, bi []uint8
	va, vb []float32
	za, zb int // zeros in each operand
	cix    []uint8
	ha, hb valueSet
	direct []uint16    // packDirect's index of values, by their top 16 bits
	memo   productMemo // rounded products of f, by operand values
	ga, gb []int32     // memo ids of va and vb (or of the swapped)
	run    perOpRun
	wide   perOpWide
	kernel perOpRowKernel // nil: the fastest this machine has
}

// valueSet assigns byte indices to distinct float32 bit patterns.
type valueSet struct {
	key  [1024]uint32
	val  [1024]uint8
	used [1024]bool
	n    int
}

func (s *valueSet) reset() {
	s.used = [1024]bool{}
	s.n = 0
}

// find returns the index of bits b, if the set holds them.
func (s *valueSet) find(b uint32) (uint8, bool) {
	for h := (b * 0x9e3779b1) >> 22; s.used[h]; h = (h + 1) & 1023 {
		if s.key[h] == b {
			return s.val[h], true
		}
	}
	return 0, false
}

// id returns the index of bits b, adding it if new; ok is false when the
// set would exceed 256 values.
func (s *valueSet) id(b uint32, vals *[]float32) (uint8, bool) {
	h := (b * 0x9e3779b1) >> 22
	for {
		if !s.used[h] {
			if s.n == 256 {
				return 0, false
			}
			s.used[h], s.key[h], s.val[h] = true, b, uint8(s.n)
			*vals = append(*vals, math.Float32frombits(b))
			s.n++
			return s.val[h], true
		}
		if s.key[h] == b {
			return s.val[h], true
		}
		h = (h + 1) & 1023
	}
}

// Gemm sets c = op(a)·op(b) as PerOpGemm does.
func (w *PerOpWorkspace) Gemm(f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || f == nil {
		perOpGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	if f.Bits() > 8 || !w.setFormat(f) {
		// A wide accumulator: its 2-D sum table would not fit in cache.
		if !w.pack(tA, tB, m, n, k, a, lda, b, ldb) {
			w.wide.split(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
			return
		}
		w.wide.run(quant.ArithmeticOf(f), m, n, k, w.ai, w.bi, w.va, w.vb, c, ldc)
		return
	}
	if !w.pack(tA, tB, m, n, k, a, lda, b, ldb) {
		w.wide.split(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	// Sum the products in the orientation that leaves the kernels less
	// work: they sum rows in pairs and columns in blocks of perOpLanes,
	// and skip the terms where both rows' operands are zero (when adding
	// the zero product leaves every sum unchanged: no signed zeros). The
	// orientation changes no bit: each sum adds the same products in the
	// same order.
	rowIdx, colIdx, rowVals, colVals := w.ai, w.bi, w.va, w.vb
	rows, cols, ldr, ldcol := m, n, ldc, 1
	swapped := perOpWork(n, m, w.zb, k) < perOpWork(m, n, w.za, k)
	if swapped {
		rowIdx, colIdx, rowVals, colVals = w.bi, w.ai, w.vb, w.va
		rows, cols, ldr, ldcol = n, m, 1, ldc
	}
	// Product table, by the format's multiplication (for the default
	// one, float32 products are exact in float64 and Round64 rounds once),
	// remembered across calls (productIdx).
	grow(&w.prod, perOpTable)
	aVals, bVals := rowVals, colVals
	if swapped {
		aVals, bVals = colVals, rowVals
	}
	w.memo.ids(&w.ga, &w.gb, aVals, bVals)
	for i := range rowVals {
		for j := range colVals {
			ia, ib := i, j
			if swapped {
				ia, ib = j, i
			}
			p, ok := w.productIdx(aVals[ia], bVals[ib], w.ga[ia], w.gb[ib])
			if !ok { // an arithmetic that breaks its contract
				w.wide.split(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
				return
			}
			w.prod[i<<8|j] = p
		}
	}
	zero := -1 // index of the row operand's zero, if its products can be skipped
	if z, ok := w.zeroOf(rowVals); ok {
		zp := w.prod[z<<8]
		skip := true
		for j := range colVals {
			skip = skip && w.prod[z<<8|j] == zp
		}
		for s := range w.vals {
			skip = skip && w.sum[s<<8|int(zp)] == uint8(s)
		}
		if skip {
			zero = z
		}
	}
	// Interleave the columns in groups of perOpLanes: group g holds, for
	// each l, the indices of columns 64g..64g+63 (0 past the last column).
	// (A transpose of each group, by tiles of perOpTile terms, which stay
	// in cache.)
	ng := (cols + perOpLanes - 1) / perOpLanes
	grow(&w.cix, ng*k*perOpLanes)
	for g := range ng {
		grp := w.cix[g*k*perOpLanes : (g+1)*k*perOpLanes]
		for l0 := 0; l0 < k; l0 += perOpTile {
			l1 := min(l0+perOpTile, k)
			for t := range perOpLanes {
				j := g*perOpLanes + t
				blk := grp[t:]
				if j >= cols {
					for l := l0; l < l1; l++ {
						blk[l*perOpLanes] = 0
					}
					continue
				}
				for l, v := range colIdx[j*k+l0 : j*k+l1] {
					blk[(l0+l)*perOpLanes] = v
				}
			}
		}
	}
	r := &w.run
	r.c, r.ldr, r.ldc, r.ri, r.cix = c, ldr, ldcol, rowIdx, w.cix[:ng*k*perOpLanes]
	r.rows, r.cols, r.k, r.zero = rows, cols, k, zero
	r.tables = perOpTables{(*[perOpTable]uint8)(w.prod), (*[perOpTable]uint8)(w.sum)}
	r.vals = w.vals
	r.kernel = w.kernel
	if r.kernel == nil {
		r.kernel = perOpKernelAt(levelInUse)
	}
	// Split the rows over the cores, each part with its own scratch.
	r.parts = min(runtime.GOMAXPROCS(0), rows, len(r.nz))
	ForEaches(r.parts, rows*cols*k, r)
	w.run.c, w.run.ri, w.run.cix, w.run.vals = nil, nil, nil, nil
}

// perOpWork estimates the lookups of a per-op GEMM summed with rows
// rows (of which zeros of rows·k row operands are zero) and cols columns:
// the rows padded to pairs and the columns to blocks of perOpLanes, less
// the terms skipped where both rows of a pair have zeros, were zeros
// spread evenly.
func perOpWork(rows, cols, zeros, k int) float64 {
	z := float64(zeros) / float64(rows*k)
	return float64((rows+1)/2*2) * float64((cols+perOpLanes-1)/perOpLanes*perOpLanes) * (1 - float64(z*z)) // float64(…): no arm64 FMA
}

// A perOpKernelInfo names a row kernel and its instruction-set level.
type perOpKernelInfo struct {
	name  string
	level level
	fn    perOpRowKernel
}

// perOpRun is one table-driven per-op GEMM, split into parts of rows.
type perOpRun struct {
	c          []float32
	ldr, ldc   int
	ri, cix    []uint8
	rows, cols int
	k          int
	tables     perOpTables
	vals       []float32
	zero       int
	kernel     perOpRowKernel
	parts      int         // how many parts the rows are split into
	nz         [16][]int32 // scratch of each part
}

// Each sums part i of the rows: the same products in the same order as
// the serial loop, so the split changes no bit.
func (r *perOpRun) Each(i int) {
	lo, hi := i*r.rows/r.parts, (i+1)*r.rows/r.parts
	nz := r.nz[i][:0]
	k := r.k
	var out [2 * perOpLanes]uint32
	for row := lo; row < hi; row += 2 {
		row1 := min(row+1, hi-1) // an odd last row is summed twice
		ar0, ar1 := r.ri[row*k:(row+1)*k], r.ri[row1*k:(row1+1)*k]
		// The terms after the first that are not skipped in both rows.
		nz = nz[:0]
		for l := 1; l < k; l++ {
			if int(ar0[l]) != r.zero || int(ar1[l]) != r.zero {
				nz = append(nz, int32(l))
			}
		}
		for j := 0; j < r.cols; j += perOpLanes {
			r.kernel(&out, r.cix[j*k:(j+perOpLanes)*k], ar0, ar1, nz, &r.tables)
			n := min(perOpLanes, r.cols-j)
			c := r.c[row*r.ldr+j*r.ldc:]
			for t, o := range out[:n] {
				c[t*r.ldc] = r.vals[o]
			}
			c = r.c[row1*r.ldr+j*r.ldc:]
			for t, o := range out[perOpLanes : perOpLanes+n] {
				c[t*r.ldc] = r.vals[o]
			}
		}
	}
	r.nz[i] = nz
}

// productIdx returns the index of R(x·y) (the format's Mul64, x an
// element of a), from the memo if it holds it (ids gx and gy >= 0).
func (w *PerOpWorkspace) productIdx(x, y float32, gx, gy int32) (uint8, bool) {
	if gx >= 0 && gy >= 0 {
		if e := w.memo.prod[int(gx)*memoIDs+int(gy)]; e != 0 {
			return uint8(e - 1), true
		}
	}
	p, ok := w.idx(w.ar.Mul64(float64(x), float64(y)))
	if ok && gx >= 0 && gy >= 0 {
		w.memo.prod[int(gx)*memoIDs+int(gy)] = uint16(p) + 1
	}
	return p, ok
}

// memoIDs is how many operand values a productMemo tells apart.
const memoIDs = 512

// A productMemo remembers the rounded products of operand values between
// calls: their value sets change little from one call to the next, and
// the format's Mul64 takes tens of nanoseconds. Values are told apart by
// their top 16 bits (those of 8-bit formats have no others); when more
// than memoIDs have been seen, it starts afresh.
type productMemo struct {
	id   []uint16 // [top 16 bits]: id+1 of the value, 0 if none
	keys []uint16 // top 16 bits of each id's value
	prod []uint16 // [ida·memoIDs + idb]: index+1 of R(a·b), 0 if not known
}

// reset forgets every product (the format changed).
func (m *productMemo) reset() {
	for _, k := range m.keys {
		m.id[k] = 0
	}
	m.keys = m.keys[:0]
	clear(m.prod)
}

// ids sets (*da)[i] and (*db)[i] to the ids of va[i] and vb[i], or to -1
// for values without one. (The memo starts afresh, if it must, before
// either is set, so that both hold ids of the same epoch.)
func (m *productMemo) ids(da, db *[]int32, va, vb []float32) {
	if m.id == nil {
		m.id = make([]uint16, 1<<16)
		m.prod = make([]uint16, memoIDs*memoIDs)
	}
	if len(m.keys)+len(va)+len(vb) > memoIDs {
		m.reset()
	}
	m.assign(da, va)
	m.assign(db, vb)
}

// assign sets (*dst)[i] to the id of vals[i], adding ids for new values;
// the memo has room for all of them.
func (m *productMemo) assign(dst *[]int32, vals []float32) {
	grow(dst, len(vals))
	for i, v := range vals {
		b := math.Float32bits(v)
		if b&0xffff != 0 {
			(*dst)[i] = -1
			continue
		}
		e := m.id[b>>16]
		if e == 0 {
			m.keys = append(m.keys, uint16(b>>16))
			e = uint16(len(m.keys))
			m.id[b>>16] = e
		}
		(*dst)[i] = int32(e) - 1
	}
}

// zeroOf returns the index of +0 in vals.
func (w *PerOpWorkspace) zeroOf(vals []float32) (int, bool) {
	for i, v := range vals {
		if math.Float32bits(v) == 0 {
			return i, true
		}
	}
	return 0, false
}

// idx returns the index of a value of the format; ok is false if v is
// not one (an Arithmetic that breaks its contract).
func (w *PerOpWorkspace) idx(v float64) (i uint8, ok bool) {
	if v != v {
		return uint8(w.nanIdx), true
	}
	if float64(float32(v)) != v {
		return 0, false
	}
	return w.index.find(math.Float32bits(float32(v)))
}

// setFormat builds the value list and sum table of f, unless it has them.
func (w *PerOpWorkspace) setFormat(f quant.Format) bool {
	if w.f == f && w.sum != nil {
		return true
	}
	w.f, w.sum, w.ar = f, nil, quant.ArithmeticOf(f)
	if w.memo.id != nil {
		w.memo.reset()
	}
	w.vals = w.vals[:0]
	w.index.reset()
	w.nanIdx = -1
	for code := uint32(0); code < 1<<f.Bits(); code++ {
		v := f.Decode(code)
		if v != v {
			if w.nanIdx < 0 {
				i, _ := w.index.id(math.Float32bits(float32(math.NaN())), &w.vals)
				w.nanIdx = int(i) // at most 256 codes: never full here
			}
			continue
		}
		if float64(float32(v)) != v {
			return false // not float32 values: use the reference kernel
		}
		if _, ok := w.index.id(math.Float32bits(float32(v)), &w.vals); !ok {
			return false // more than 256 values
		}
	}
	if w.nanIdx < 0 {
		// Formats without NaN never produce it from finite operands; give
		// the index a value anyway so that the tables are total.
		w.nanIdx = 0
	}
	sum := make([]uint8, perOpTable) // w.sum is nil until the table is whole
	for i, x := range w.vals {
		for j, y := range w.vals {
			s, ok := w.idx(w.ar.Add64(float64(x), float64(y)))
			if !ok {
				return false
			}
			sum[i<<8|j] = s
		}
	}
	w.sum = sum
	return true
}

// pack converts op(a) (m×k, rows along l) and op(b)ᵀ (n×k) to byte
// indices, or reports false if an operand has more than 256 values.
func (w *PerOpWorkspace) pack(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int) bool {
	grow(&w.ai, m*k)
	grow(&w.bi, n*k)
	var okA, okB bool
	w.va, w.za, okA = w.packDirect(w.ai, a, lda, tA, m, k, w.va[:0])
	w.vb, w.zb, okB = w.packDirect(w.bi, b, ldb, !tB, n, k, w.vb[:0])
	if okA && okB {
		return true
	}
	return w.packHashed(tA, tB, m, n, k, a, lda, b, ldb)
}

// packDirect sets dst (rows×k) to the indices of the elements of src
// (element (i, l) at src[i·ld + l], or at src[l·ld + i] if trans) in
// vals, which it extends, and counts the zeros. It handles the values of
// formats of at most 8 bits, whose float32 bits are 0 below the top 16:
// those 16 bits index w.direct. ok is false if a value is not of that
// kind or src holds more than 256 values; then dst is not whole.
func (w *PerOpWorkspace) packDirect(dst []uint8, src []float32, ld int, trans bool, rows, k int, vals []float32) (_ []float32, zeros int, ok bool) {
	if w.direct == nil {
		w.direct = make([]uint16, 1<<16) // index+1 by top 16 bits; 0: none
	}
	direct := (*[1 << 16]uint16)(w.direct)
	defer func() {
		for _, v := range vals { // leave w.direct empty for the next call
			direct[math.Float32bits(v)>>16] = 0
		}
	}()
	id := func(x float32) (uint8, bool) {
		b := math.Float32bits(x)
		if b&0xffff != 0 {
			return 0, false
		}
		e := direct[b>>16]
		if e == 0 {
			if len(vals) == 256 {
				return 0, false
			}
			vals = append(vals, x)
			e = uint16(len(vals))
			direct[b>>16] = e
		}
		return uint8(e - 1), true
	}
	if !trans {
		for i := 0; i < rows; i++ {
			d := dst[i*k : (i+1)*k]
			for l, x := range src[i*ld : i*ld+k] {
				v, ok := id(x)
				if !ok {
					return vals, 0, false
				}
				if x == 0 {
					zeros++
				}
				d[l] = v
			}
		}
		return vals, zeros, true
	}
	// A transpose, by tiles of perOpTile rows of dst: the tile's rows of
	// dst stay in cache while l runs.
	for i0 := 0; i0 < rows; i0 += perOpTile {
		i1 := min(i0+perOpTile, rows)
		d := dst[i0*k:]
		for l := 0; l < k; l++ {
			for i, x := range src[l*ld+i0 : l*ld+i1] {
				v, ok := id(x)
				if !ok {
					return vals, 0, false
				}
				if x == 0 {
					zeros++
				}
				d[i*k+l] = v
			}
		}
	}
	return vals, zeros, true
}

// perOpTile is the side of the tiles in which the per-op GEMM transposes
// its byte indices: 64 rows of 64 bytes, 4 KiB, stay in the L1 cache.
const perOpTile = 64

// packHashed is pack for any float32 values, found in hash tables.
func (w *PerOpWorkspace) packHashed(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int) bool {
	w.ha.reset()
	w.hb.reset()
	w.va, w.vb = w.va[:0], w.vb[:0]
	grow(&w.ai, m*k)
	grow(&w.bi, n*k)
	w.za, w.zb = 0, 0
	for i := 0; i < m; i++ {
		for l := 0; l < k; l++ {
			var x float32
			if tA {
				x = a[l*lda+i]
			} else {
				x = a[i*lda+l]
			}
			if x == 0 {
				w.za++
			}
			id, ok := w.ha.id(math.Float32bits(x), &w.va)
			if !ok {
				return false
			}
			w.ai[i*k+l] = id
		}
	}
	for j := 0; j < n; j++ {
		for l := 0; l < k; l++ {
			var x float32
			if tB {
				x = b[j*ldb+l]
			} else {
				x = b[l*ldb+j]
			}
			if x == 0 {
				w.zb++
			}
			id, ok := w.hb.id(math.Float32bits(x), &w.vb)
			if !ok {
				return false
			}
			w.bi[j*k+l] = id
		}
	}
	return true
}
