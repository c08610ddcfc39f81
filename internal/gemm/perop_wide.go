package gemm

import (
	"runtime"

	"github.com/positgan/positgan/quant"
)

// perOpWide computes per-op GEMMs whose sums cannot be tables: formats of
// more than 8 bits (a 16-bit accumulator's sum table would take 2^32
// entries) and operands of more than 256 values. It calls the format's
// arithmetic for every sum, as the reference kernel does, in the same
// order, so it gives the same bits; it saves the time of the product
// roundings where the operands have few values (a table of them), and
// splits the rows over the cores.
type perOpWide struct {
	ar         quant.Arithmetic
	m, n, k    int
	ai, bi     []uint8   // operands' value indices (m×k, n×k)
	prods      []float64 // [i·len(vb) + j]: R(va[i]·vb[j])
	nb         int       // len(vb)
	c          []float32
	ldc, parts int

	// For split: the reference kernel on a share of the rows.
	f          quant.Format
	tA, tB     bool
	a, b       []float32
	lda, ldb   int
	splitRefer bool
}

// wideWork is a rough count of the operations of one rounded sum, for
// ForEaches: the format's arithmetic takes tens of nanoseconds.
const wideWork = 64

// run sets c (m×n, row stride ldc) to the per-op products of the packed
// operands ai (m×k) and bi (n×k), whose values are va and vb.
func (w *perOpWide) run(ar quant.Arithmetic, m, n, k int, ai, bi []uint8, va, vb []float32, c []float32, ldc int) {
	grow(&w.prods, len(va)*len(vb))
	for i, x := range va {
		for j, y := range vb {
			w.prods[i*len(vb)+j] = ar.Mul64(float64(x), float64(y))
		}
	}
	w.ar, w.m, w.n, w.k, w.ai, w.bi, w.nb, w.c, w.ldc = ar, m, n, k, ai, bi, len(vb), c, ldc
	w.splitRefer = false
	w.parts = min(runtime.GOMAXPROCS(0), m)
	ForEaches(w.parts, m*n*k*wideWork, w)
	w.ar, w.ai, w.bi, w.c = nil, nil, nil, nil
}

// split runs the reference kernel perOpGemm with the rows split over the
// cores: each row's sums are the serial kernel's.
func (w *perOpWide) split(f quant.Format, tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	w.f, w.tA, w.tB, w.m, w.n, w.k, w.a, w.lda, w.b, w.ldb, w.c, w.ldc = f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc
	w.splitRefer = true
	w.parts = min(runtime.GOMAXPROCS(0), m)
	ForEaches(w.parts, m*n*k*wideWork, w)
	w.f, w.a, w.b, w.c = nil, nil, nil, nil
}

// Each computes part i of the rows.
func (w *perOpWide) Each(i int) {
	lo, hi := i*w.m/w.parts, (i+1)*w.m/w.parts
	if lo == hi {
		return
	}
	if w.splitRefer {
		// Row lo of op(A): a row of A, or (transposed) a column of it.
		var a []float32
		if w.tA {
			a = w.a[lo:]
		} else {
			a = w.a[lo*w.lda:]
		}
		perOpGemm(w.f, w.tA, w.tB, hi-lo, w.n, w.k, a, w.lda, w.b, w.ldb, w.c[lo*w.ldc:], w.ldc)
		return
	}
	k, nb, prods, ar := w.k, w.nb, w.prods, w.ar
	for r := lo; r < hi; r++ {
		ar0 := w.ai[r*k : (r+1)*k]
		c := w.c[r*w.ldc : r*w.ldc+w.n]
		for j := range c {
			bj := w.bi[j*k : (j+1)*k]
			s := prods[int(ar0[0])*nb+int(bj[0])]
			for l := 1; l < k; l++ {
				s = ar.Add64(s, prods[int(ar0[l])*nb+int(bj[l])])
			}
			c[j] = float32(s)
		}
	}
}
