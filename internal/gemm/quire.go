package gemm

import (
	"math/bits"

	"github.com/positgan/positgan/quant"
)

// QuireWorkspace computes exact dot products of float32 matrices fast, by
// BLAS DGEMM on float64 copies, and keeps its buffers between calls. Its
// Gemm gives the same bits as QuireGemm.
//
// Why it is exact: if every entry of A is a multiple of 2^la below
// 2^(ha+1) in magnitude, and likewise for B, and ha+1-la + hb+1-lb +
// ceil(log2 k) <= 53, then every partial sum of a dot product is a
// multiple of 2^(la+lb) below 2^53·2^(la+lb): float64 holds it exactly, so
// DGEMM computes the exact sum whatever its order of operations (blocking,
// FMA). Operands rounded to 8-bit formats have few significant bits, so
// one DGEMM usually suffices; when the data span too many binades, the
// operands are split by exponent into bands whose pairs each satisfy the
// bound, and the exact partial results are summed exactly per element.
// With more than MaxQuireBands band pairs (wide-range float32 data), it
// falls back to the reference kernel.
//
// A QuireWorkspace must not be used by two goroutines at once.
type QuireWorkspace struct {
	a, b, c []float64
	ha, hb  expHist
	job     blockedJob // blocked's state (quire_blocked.go)
}

// MaxQuireBands is the largest number of DGEMMs QuireWorkspace.Gemm runs
// before it falls back to the reference kernel.
const MaxQuireBands = 9

// expHist records, for each binary exponent e of the finite nonzero
// entries of a matrix (index e+149), whether it occurs and the lowest
// exponent of a significant bit among the entries with that exponent.
type expHist struct {
	seen [277]bool
	lsb  [277]int16
}

// Gemm sets c = op(a)·op(b) with each element the exact dot product
// rounded once to f (nil: to float32), as QuireGemm.
func (w *QuireWorkspace) Gemm(f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	if w.blocked(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc) {
		return
	}
	// Convert to float64, noting each operand's exponent range: with one
	// band per operand (the usual case) the conversion is the band's copy
	// and the full exponent histogram is not needed.
	sa, sb := copyStride(ac), copyStride(bc)
	grow(&w.a, ar*sa)
	grow(&w.b, br*sb)
	ra := convertRange(w.a, sa, a, ar, ac, lda)
	rb := convertRange(w.b, sb, b, br, bc, ldb)
	if k == 0 || !ra.finite() || !rb.finite() {
		z := roundTo[float32](f, 0)
		for i := 0; i < m; i++ {
			for j := range c[i*ldc : i*ldc+n] {
				c[i*ldc+j] = z
			}
		}
		return
	}
	special := ra.special() || rb.special()
	budget := 53 - bits.Len(uint(k-1))
	var bandsA, bandsB []band
	switch {
	case special || ra.span()+rb.span() <= budget:
		// One band each, one float64 product: for IEEE semantics with NaN
		// and Inf, or as partition would choose (the spans bound the exact
		// ones from above).
		bandsA, bandsB = []band{{-149, 127}}, []band{{-149, 127}}
	default:
		w.ha.scan(a, ar, ac, lda)
		w.hb.scan(b, br, bc, ldb)
		bandsA, bandsB = partition(&w.ha, &w.hb, budget)
		if bandsA == nil {
			quireGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
			return
		}
	}
	na, nb := len(bandsA), len(bandsB)
	grow(&w.a, na*ar*sa)
	grow(&w.b, nb*br*sb)
	grow(&w.c, na*nb*m*n)
	if na > 1 {
		for i, bd := range bandsA {
			bd.extract(w.a[i*ar*sa:(i+1)*ar*sa], sa, a, ar, ac, lda)
		}
	}
	if nb > 1 {
		for j, bd := range bandsB {
			bd.extract(w.b[j*br*sb:(j+1)*br*sb], sb, b, br, bc, ldb)
		}
	}
	mn := m * n
	for i := 0; i < na; i++ {
		for j := 0; j < nb; j++ {
			p := i*nb + j
			Gemm(tA, tB, m, n, k, 1, w.a[i*ar*sa:(i+1)*ar*sa], sa, w.b[j*br*sb:(j+1)*br*sb], sb, 0, w.c[p*mn:(p+1)*mn], n)
		}
	}
	combine(f, c, ldc, w.c, m, n, na*nb, special)
}

// copyStride returns the row stride of the float64 copy of a matrix with
// cols columns: an odd number of 128-byte pairs of cache lines, so that
// the rows of a panel the GEMM reads in place fall in different cache
// sets (a stride of 4 KB would put them all in one) while each row's
// pieces still fill whole pairs, as the adjacent-line prefetcher fetches.
func copyStride(cols int) int {
	return ((cols+15)/16 | 1) * 16
}

// band is a range of exponents [lo, hi].
type band struct{ lo, hi int }

// greedy splits the exponents present in h, from the top down, into bands
// whose span (top exponent + 1 - lowest significant bit) is at most s. It
// returns nil if one exponent alone spans more than s.
func (h *expHist) greedy(s int, dst []band) []band {
	dst = dst[:0]
	var cur band
	curLSB, open := 0, false
	for i := len(h.seen) - 1; i >= 0; i-- {
		if !h.seen[i] {
			continue
		}
		e, l := i-149, int(h.lsb[i])
		if open && cur.hi+1-min(curLSB, l) <= s {
			cur.lo, curLSB = e, min(curLSB, l)
			continue
		}
		if open {
			dst = append(dst, cur)
		}
		if e+1-l > s {
			return nil
		}
		cur, curLSB, open = band{e, e}, l, true
	}
	return append(dst, cur)
}

// partition chooses bands for A and B whose every pair fits the budget,
// with as few pairs as possible, or returns nils if that takes more than
// MaxQuireBands pairs.
func partition(ha, hb *expHist, budget int) (bandsA, bandsB []band) {
	best := MaxQuireBands + 1
	var ta, tb []band
	for sa := 1; sa < budget; sa++ {
		ta = ha.greedy(sa, ta)
		if ta == nil {
			continue
		}
		tb = hb.greedy(budget-sa, tb)
		if tb == nil {
			continue
		}
		if p := len(ta) * len(tb); p < best {
			best = p
			bandsA, bandsB = append([]band(nil), ta...), append([]band(nil), tb...)
		}
	}
	return bandsA, bandsB
}
