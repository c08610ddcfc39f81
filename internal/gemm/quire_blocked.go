//go:build !openblas

package gemm

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/positgan/positgan/quant"
)

// QuireWorkspace.blocked is QuireWorkspace.Gemm for the usual case (one
// band per operand) when the float64 copies of the operands would not fit
// in the cache: it cuts C into blocks of columns and the sum into pieces,
// and converts each piece of op(A) and op(B) to float64 just before the
// float64 GEMM adds its products to the block of the float64 result (beta
// 1), so that the copies and the block stay in cache instead of making a
// round trip through memory (posit8+-quire's step on AVX-512, one thread,
// in CPU time over the fp32 step's: CGAN about 2.2 → 2.0×, dcgan64 1.75 →
// 1.68×, 2026-11-27 on the shared VM).
//
// The result is the exact sum, as Gemm's: under the one-band condition
// every partial sum of any subset of the products is a multiple of
// 2^(la+lb) below 2^53·2^(la+lb) (see QuireWorkspace), so each piece's
// products, and the sum of the pieces, are exact in float64 whatever the
// order. The condition is checked on the exponent ranges the conversions
// gather, once all pieces are in; if it fails, or the operands hold NaN,
// Inf or no finite nonzero value, blocked reports false having written
// nothing to c, and Gemm starts over.

// Sizes in float64 elements that blocked keeps in cache.
const (
	blockedC   = 32 << 10 // a block of the float64 result: 256 KB
	blockedOps = 48 << 10 // a piece of both converted operands: 384 KB
	// blockedMaxM is the largest m blocked takes: it blocks the columns
	// of C only and converts a piece of op(A) (m rows) for every block,
	// which pays when op(A) has few rows (the batch) and op(B) many
	// columns, as the layers' forward and backward products have.
	blockedMaxM = 256
)

// blockPlan is blocked's cut of C into nblk blocks of w columns (the last
// narrower) and of the sum into pieces of kc.
type blockPlan struct{ w, nblk, kc int }

// planBlocks returns blocked's plan for an m×n×k product, or false where
// the plain path suits: a tall op(A), or copies small enough to stay in
// cache anyway.
func planBlocks(m, n, k int) (blockPlan, bool) {
	if m > blockedMaxM || (m+n)*k <= blockedOps {
		return blockPlan{}, false
	}
	nb := (m*n + blockedC - 1) / blockedC
	// As many blocks as the float64 GEMM would use goroutines: its calls
	// here are too small to split.
	if flops := 2 * m * n * k; flops >= parallelMin {
		g := maxGoroutine
		if g <= 0 {
			g = runtime.GOMAXPROCS(0)
		}
		nb = max(nb, min(g, flops/(parallelMin/2), 64))
	}
	w := (n + nb - 1) / nb
	w = min((w+15)&^15, n) // whole tiles of the kernels (nr divides 16)
	kc := min(max(blockedOps/(m+w), 32), blockK)
	if kc >= k {
		kc = k
	} else {
		// Pieces as even as can be in multiples of 16 (the AVX2
		// conversion does whole vectors of 8 and the rest in Go).
		np := (k + kc - 1) / kc
		kc = ((k+np-1)/np + 15) &^ 15
	}
	return blockPlan{w, (n + w - 1) / w, kc}, true
}

// blockedJob is one blocked call, split over goroutines by blocks.
type blockedJob struct {
	blockPlan
	tA, tB  bool
	m, n, k int
	a, b    []float32
	lda     int
	ldb     int
	sum     []float64 // m×n, row stride n

	mu      sync.Mutex
	ra, rb  expRange        // of the pieces converted so far
	scratch []*blockScratch // free converted-piece buffers
	failed  atomic.Bool     // a block saw NaN, Inf or too wide a span
}

// blockScratch holds one goroutine's converted pieces.
type blockScratch struct{ a, b []float64 }

func (w *QuireWorkspace) blocked(f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	plan, ok := planBlocks(m, n, k)
	if !ok {
		return false
	}
	j := &w.job
	j.blockPlan = plan
	j.tA, j.tB, j.m, j.n, j.k = tA, tB, m, n, k
	j.a, j.b, j.lda, j.ldb = a, b, lda, ldb
	j.sum = grow(&w.c, m*n)
	j.ra, j.rb = expRange{key: 1<<32 - 1}, expRange{key: 1<<32 - 1}
	j.failed.Store(false)
	ForRanges(plan.nblk, 1, j)
	j.a, j.b = nil, nil
	ra, rb := j.ra, j.rb
	if j.failed.Load() || !ra.finite() || !rb.finite() || ra.span()+rb.span() > 53-bits.Len(uint(k-1)) {
		return false
	}
	combine(f, c, ldc, j.sum, m, n, 1, false)
	return true
}

// Range computes blocks [lo, hi) of the float64 result.
func (j *blockedJob) Range(lo, hi int) {
	j.mu.Lock()
	var s *blockScratch
	if n := len(j.scratch); n > 0 {
		s = j.scratch[n-1]
		j.scratch = j.scratch[:n-1]
	} else {
		s = new(blockScratch)
	}
	j.mu.Unlock()
	ra, rb := j.blocks(s, lo, hi)
	j.mu.Lock()
	j.ra.top, j.ra.key = max(j.ra.top, ra.top), min(j.ra.key, ra.key)
	j.rb.top, j.rb.key = max(j.rb.top, rb.top), min(j.rb.key, rb.key)
	j.scratch = append(j.scratch, s)
	j.mu.Unlock()
}

// blocks computes blocks [lo, hi) with the buffers of s and returns the
// exponent ranges of the pieces it converted.
func (j *blockedJob) blocks(s *blockScratch, lo, hi int) (ra, rb expRange) {
	ra, rb = expRange{key: 1<<32 - 1}, expRange{key: 1<<32 - 1}
	budget := 53 - bits.Len(uint(j.k-1))
	for blk := lo; blk < hi; blk++ {
		j0 := blk * j.w
		nb := min(j.w, j.n-j0)
		for p0 := 0; p0 < j.k; p0 += j.kc {
			if j.failed.Load() {
				return ra, rb
			}
			kb := min(j.kc, j.k-p0)
			// op(A)[:, p0:p0+kb] and op(B)[p0:p0+kb, j0:j0+nb] as stored.
			var as, bs []float32
			var ar, ac, br, bc int
			if j.tA {
				as, ar, ac = j.a[p0*j.lda:], kb, j.m
			} else {
				as, ar, ac = j.a[p0:], j.m, kb
			}
			if j.tB {
				bs, br, bc = j.b[j0*j.ldb+p0:], nb, kb
			} else {
				bs, br, bc = j.b[p0*j.ldb+j0:], kb, nb
			}
			sa, sb := copyStride(ac), copyStride(bc)
			a64, b64 := grow(&s.a, ar*sa), grow(&s.b, br*sb)
			r := convertRange(a64, sa, as, ar, ac, j.lda)
			ra.top, ra.key = max(ra.top, r.top), min(ra.key, r.key)
			r = convertRange(b64, sb, bs, br, bc, j.ldb)
			rb.top, rb.key = max(rb.top, r.top), min(rb.key, r.key)
			if ra.special() || rb.special() || (ra.finite() && rb.finite() && ra.span()+rb.span() > budget) {
				j.failed.Store(true)
				return ra, rb
			}
			beta := 1.0
			if p0 == 0 {
				beta = 0
			}
			Gemm(j.tA, j.tB, j.m, nb, kb, 1, a64, sa, b64, sb, beta, j.sum[j0:], j.n)
		}
	}
	return ra, rb
}
