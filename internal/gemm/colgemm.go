//go:build !openblas

package gemm

import (
	"unsafe"

	"github.com/positgan/positgan/quant"
)

// GemmCols sets c (m × n·g.Cols(), row stride ldc) to op(a)·Col, where
// op(a) is m × g.Rows() (a transposed when tA) and Col is the column
// matrix Im2colBatch(x, n, g) of the n images of x, which is never built:
// the GEMM packs its panels of op(B) straight from the images. The bits
// are those of Im2colBatch into a matrix col and Gemm(tA, false, m,
// n·g.Cols(), g.Rows(), 1, a, lda, col, n·g.Cols(), 0, c, ldc): the packed
// panels hold the same values, and each element of c is one chain of FMAs
// over the sum whatever the panels' source (sgemm.go).
//
// A training convolution's column matrix is K·K/(S·S) times its input
// (four times for the DCGANs' 4×4 stride-2 layers, 12.8 MB for dcgan64's
// middle layer at batch 64): writing it and reading it back to pack it
// cost a sixth of the time of its product.
func GemmCols[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, c []T, ldc int) {
	gemmCols(tA, m, a, lda, x, n, g, quant.BlockFormat{}, c, ldc)
}

func gemmCols[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, blk quant.BlockFormat, c []T, ldc int) {
	k, nc := g.Rows(), n*g.Cols()
	checkCols(x, n, g)
	if m == 0 || nc == 0 {
		return
	}
	checkDims(tA, false, m, nc, k, len(a), lda, nc*k, nc, len(c), ldc)
	d := driverOf[T]()
	pad, _ := d.pads.Get().(*[]T)
	if pad == nil {
		pad = new([]T)
	}
	src := newColSrc(pad, x, n, g)
	src.blk = blk
	d.splitCols(gemmArgs[T]{d: d, tA: tA, m: m, n: nc, k: k, alpha: 1, a: a, lda: lda, ldb: nc, c: c, ldc: ldc}, src)
	d.pads.Put(pad)
}

// GemmColsT sets c (m × g.Rows(), row stride ldc) to op(a)·Colᵀ, where
// op(a) is m × n·g.Cols() (a transposed when tA) and Col is the column
// matrix of the n images of x, as GemmCols: the bits of Im2colBatch and
// Gemm(tA, true, m, g.Rows(), n·g.Cols(), 1, a, lda, col, n·g.Cols(), 0,
// c, ldc). A row of a packed panel of Colᵀ is a run of taps at one output
// position: for a K×K kernel, K runs of K adjacent pixels of the image.
func GemmColsT[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, c []T, ldc int) {
	gemmColsT(tA, m, a, lda, x, n, g, quant.BlockFormat{}, c, ldc)
}

func gemmColsT[T Float](tA bool, m int, a []T, lda int, x []T, n int, g Geom, blk quant.BlockFormat, c []T, ldc int) {
	k, nc := n*g.Cols(), g.Rows()
	checkCols(x, n, g)
	if m == 0 {
		return
	}
	if k == 0 {
		Gemm(tA, true, m, nc, 0, 1, a, lda, nil, max(1, k), 0, c, ldc)
		return
	}
	checkDims(tA, true, m, nc, k, len(a), lda, nc*k, k, len(c), ldc)
	d := driverOf[T]()
	pad, _ := d.pads.Get().(*[]T)
	if pad == nil {
		pad = new([]T)
	}
	src := newColSrc(pad, x, n, g)
	src.blk = blk
	d.splitCols(gemmArgs[T]{d: d, tA: tA, tB: true, m: m, n: nc, k: k, alpha: 1, a: a, lda: lda, ldb: k, c: c, ldc: ldc}, src)
	d.pads.Put(pad)
}

// splitCols runs the product args with src as its column source, held in
// a pooled colSrc: the address of a local handed to the split's goroutines
// would move it to the heap, an allocation at every product of a step.
func (d *driver[T]) splitCols(args gemmArgs[T], src colSrc[T]) {
	s, _ := d.srcs.Get().(*colSrc[T])
	if s == nil {
		s = new(colSrc[T])
	}
	*s = src
	args.cols = s
	d.split(args)
	*s = colSrc[T]{}
	d.srcs.Put(s)
}

func checkCols[T Float](x []T, n int, g Geom) {
	if n < 0 || len(x) < n*g.C*g.H*g.W {
		panic("gemm: im2col: slice too short")
	}
}

// colSrc is the column matrix of n images, read where it is packed: the
// images padded with their zeros, so that every tap lies inside them and
// a run of the taps of one kernel row is adjacent pixels.
type colSrc[T Float] struct {
	x []T
	n int
	g Geom // of x: the padding is in the image
	// blk, unless zero, is the block format the packed panels are
	// rounded to, with blocks along the sum (colgemm_block.go).
	blk quant.BlockFormat
	// mat, if not nil, is op(B) itself, a matrix of row stride ldm (as
	// Gemm's b and ldb), packed as packB packs it and then rounded to
	// blk (GemmBlockedB); x, n and g are then unused.
	mat []T
	ldm int
	// blkA, unless zero, is the block format the packed panels of op(A)
	// are rounded to, with blocks along the sum (GemmBlockedB).
	blkA quant.BlockFormat
}

// newColSrc returns the column matrix of the n images x of geometry g,
// copying them padded into *pad if g has padding.
func newColSrc[T Float](pad *[]T, x []T, n int, g Geom) colSrc[T] {
	if g.PH == 0 && g.PW == 0 {
		return colSrc[T]{x: x, n: n, g: g}
	}
	gp := Padded(g)
	xp := grow(pad, n*gp.C*gp.H*gp.W)
	PadImages(xp, x, n, g)
	return colSrc[T]{x: xp, n: n, g: gp}
}

// positions sets ps to the offsets in x of the taps (c=0, 0, 0) of the
// output positions [p0, p0+len(ps)).
func (s *colSrc[T]) positions(ps []int, p0 int) {
	g := s.g
	cols, img := g.Cols(), g.C*g.H*g.W
	b, r := p0/cols, p0%cols
	oy, ox := r/g.OW, r%g.OW
	for q := range ps {
		ps[q] = b*img + oy*g.SH*g.W + ox*g.SW
		if ox++; ox == g.OW {
			ox = 0
			if oy++; oy == g.OH {
				oy = 0
				b++
			}
		}
	}
}

// patches sets dst[q·ldd + u] = Col[t0+u][ps[q]] for u < nt: the taps
// [t0, t0+nt) at each position, taken a run of taps along a kernel row at
// a time (adjacent pixels of the image).
func (s *colSrc[T]) patches(dst []T, ldd int, ps []int, t0, nt int) {
	g := s.g
	kk, hw := g.KH*g.KW, g.H*g.W
	for u := 0; u < nt; {
		t := t0 + u
		c, r := t/kk, t%kk
		i, j := r/g.KW, r%g.KW
		ln := min(g.KW-j, nt-u)
		s.run(dst[u:], ldd, ps, c*hw+i*g.W+j, ln)
		u += ln
	}
}

// run sets dst[q·ldd + e] = x[ps[q] + off + e] for e < ln. The offsets
// in ps increase; the bounds are checked once, for the last, and the
// loops move whole runs through unsafe pointers: with a slice expression
// and its checks per run, the packing took as long as im2col and the
// copy of its columns it replaces.
func (s *colSrc[T]) run(dst []T, ldd int, ps []int, off, ln int) {
	if len(ps) == 0 {
		return
	}
	last := len(ps) - 1
	x := s.x
	if off < 0 || ps[0] < 0 || ps[last]+off+ln > len(x) {
		panic("gemm: im2col: tap outside the images")
	}
	_ = dst[last*ldd+ln-1]
	size := unsafe.Sizeof(T(0))
	// Pointers are formed from the slices' starts for each run, never
	// moved past their ends (the garbage collector and checkptr reject
	// those).
	xp, d0 := unsafe.Pointer(&x[off]), unsafe.Pointer(&dst[0])
	step := uintptr(ldd) * size
	switch ln {
	case 4:
		for q, b := range ps {
			*(*[4]T)(unsafe.Add(d0, uintptr(q)*step)) = *(*[4]T)(unsafe.Add(xp, uintptr(b)*size))
		}
	case 3:
		for q, b := range ps {
			*(*[3]T)(unsafe.Add(d0, uintptr(q)*step)) = *(*[3]T)(unsafe.Add(xp, uintptr(b)*size))
		}
	default:
		// Element by element: runs are a kernel row, 1 to 7 or so taps,
		// shorter than memmove's start-up.
		for q, b := range ps {
			src, dp := unsafe.Add(xp, uintptr(b)*size), unsafe.Add(d0, uintptr(q)*step)
			for e := uintptr(0); e < uintptr(ln); e++ {
				*(*T)(unsafe.Add(dp, e*size)) = *(*T)(unsafe.Add(src, e*size))
			}
		}
	}
}

// packCols is packB for op(B) = Col (tB false: sum steps are taps, columns
// positions) or Colᵀ (tB true: sum steps are positions, columns taps).
func (d *driver[T]) packCols(w *workspace[T], s *colSrc[T], dst []T, tB bool, p0, kb, j0, nb, nr int) {
	if s.mat != nil {
		// Panel by panel, each rounded while it is in L1 (as packCols
		// rounds its panels below).
		for pan := 0; pan*nr < nb; pan++ {
			dp := dst[pan*nr*kb : (pan+1)*nr*kb]
			cols := min(nr, nb-pan*nr)
			d.packB(dp, tB, s.mat, s.ldm, p0, kb, j0+pan*nr, cols, nr)
			s.round(dp, kb, cols, nr)
		}
		return
	}
	if tB {
		// A panel's row l is the panel's taps at position p0+l.
		ps := grow(&w.pos, kb)
		s.positions(ps, p0)
		for pan := 0; pan*nr < nb; pan++ {
			dp := dst[pan*nr*kb : (pan+1)*nr*kb]
			cols := min(nr, nb-pan*nr)
			s.patches(dp, nr, ps, j0+pan*nr, cols)
			if cols < nr {
				for l := 0; l < kb; l++ {
					clear(dp[l*nr+cols : (l+1)*nr])
				}
			}
			s.round(dp, kb, cols, nr)
		}
		return
	}
	// A panel's row l is tap p0+l at the panel's positions: the taps at
	// each position, position by position into t, transposed.
	ps := grow(&w.pos, nb)
	s.positions(ps, j0)
	lt := kb + 8 // kb = 256 floats apart, every fourth row of t would share 4 kB offsets
	t := grow(&w.patch, nr*lt)
	for pan := 0; pan*nr < nb; pan++ {
		dp := dst[pan*nr*kb : (pan+1)*nr*kb]
		cols := min(nr, nb-pan*nr)
		s.patches(t, lt, ps[pan*nr:pan*nr+cols], p0, kb)
		d.transposeInto(dp, nr, t, lt, cols, kb)
		for c := cols; c < nr; c++ {
			for l := 0; l < kb; l++ {
				dp[l*nr+c] = 0
			}
		}
		s.round(dp, kb, cols, nr)
	}
}
