//go:build !openblas

package gemm

import (
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// The float32 and float64 GEMMs of the default build: BLIS-style blocking
// around a register-blocked micro-kernel (sgemm_amd64.s and dgemm_amd64.s
// for AVX-512 and AVX2, kernelGo elsewhere). One generic driver serves
// both types; each instance is compiled for its own element size, and the
// float32 one runs as fast as the float32-only driver it replaced
// (BenchmarkSgemm at the layer shapes: geomean -0.6% over six interleaved
// runs each, within the noise).
//
// For each block of blockN columns of C (half as many for float64) and
// each block of blockK steps of the sum, the block of op(B) is packed into
// panels nr columns wide; for each block of blockM rows, op(A) is packed
// into panels mr rows high; the kernel then runs on every mr×nr tile.
// Blocks of the sum after the first reload the partial sums from C, so
// each element of C is a single chain of FMAs over the whole sum: the bits
// do not depend on the blocking, the kernel, the alignment of the slices
// or the number of goroutines. Large products are split across goroutines
// by blocks of rows or columns of C, never along the sum.

const (
	blockK = 256
	blockM = 192
	blockN = 1024
)

// kernelInfo names a micro-kernel and its tile.
type kernelInfo[T Float] struct {
	name   string
	fn     kernelFunc[T]
	mr, nr int
}

// driver is the GEMM of one element type: its micro-kernel and block
// transposition, chosen once by init from the CPU's features, and pools
// of its working memory.
type driver[T Float] struct {
	kernelInfo[T]
	// transpose transposes blocks of tw×tw elements (transpose8,
	// transpose4d); nil where there is none.
	transpose func(dst *T, ldd int, src *T, lds int, n int)
	tw        int
	// transpose6 transposes blocks of 6 rows by 8 columns (transpose6),
	// the panels of A of a 6-row kernel; nil where there is none.
	transpose6 func(dst *T, ldd int, src *T, lds int, n int)
	// copyRows copies rows of copyWidths bytes (the assembly copyRows);
	// nil where there is none.
	copyRows func(dst unsafe.Pointer, ldd int, src unsafe.Pointer, lds int, width int, rows int)
	// packAFrom is the number of panels of op(B) in a block from which a
	// transposed op(A) is packed rather than read in place; 0: never.
	// Float64 packs from 32: a float64 panel read in place takes a whole
	// cache line from each of kb rows far apart; when it serves many
	// tiles, packing it pays (TN 1024×3136×128: 81 → 93 GFLOP/s), and
	// when few, it does not (TN 6272×64×100: 84 → 64).
	packAFrom int
	// packBFrom is the number of panels of op(A) in a goroutine's rows
	// from which op(B), not transposed, is packed rather than read in
	// place; 0: never.
	packBFrom int
	ws        sync.Pool // *workspace[T]
	splits    sync.Pool // *splitState[T]
	pads      sync.Pool // *[]T: images padded for GemmCols (colgemm.go)
	srcs      sync.Pool // *colSrc[T]: the column sources of splitCols (colgemm.go)
}

var (
	// Float32 packs op(A) from 16 panels of op(B) and op(B) from 8 of
	// op(A): a panel read in place takes a cache line or two from each of
	// kb rows far apart, which the hardware prefetchers do not follow
	// across pages; read by many tiles, a packed copy pays (AVX2, 1 thread,
	// CPU time: dcgan28's NN 256×3136×2048 40 → 66 GFLOP/s, TN 2048×784×256
	// with B 3136 wide 39 → 77, dcgan64's NN 128×3136×1024 35 → 61; the
	// geomean over BenchmarkSgemm's shapes 49.6 → 54.2, and at AVX-512 80.6
	// → 91.8), and read by few, it does not (TN 6272×64×100: 81 → 65).
	// BenchmarkSgemm's operands are in the cache, a training step's mostly
	// not: there, packing op(B) for the CGAN's 64-row products too (11
	// panels at AVX2) took its step from 39.8 to 37.0 CPU ms (AVX2, best of
	// four runs of 10 steps each).
	sgemmDriver = &driver[float32]{kernelInfo: kernelInfo[float32]{"go", kernelGo[float32], mrGo, nrGo}, packAFrom: 16, packBFrom: 8}
	dgemmDriver = &driver[float64]{kernelInfo: kernelInfo[float64]{"go", kernelGo[float64], mrGo, nrGo}, packAFrom: 32}
	// parallelMin is the flops below which one goroutine does all: on the
	// 2-core VM, products below about 32 MFLOP (the CGAN's 64×512×514)
	// took as long or longer split in two (BenchmarkSgemm -cpu 1,2).
	parallelMin  = 1 << 25
	maxGoroutine = 0 // 0: GOMAXPROCS
)

// driverOf returns the driver of T.
func driverOf[T Float]() *driver[T] {
	if d, ok := any(sgemmDriver).(*driver[T]); ok {
		return d
	}
	return any(dgemmDriver).(*driver[T])
}

// workspace holds one goroutine's packed panels and an edge tile.
type workspace[T Float] struct {
	ap, bp, tile []T
	swap, row    []T   // Cᵀ and one row of C, for narrow products
	pos          []int // output positions packed from images (colgemm.go)
	patch        []T   // their taps, to transpose into panels
}

func (d *driver[T]) getWorkspace() *workspace[T] {
	if w, ok := d.ws.Get().(*workspace[T]); ok {
		return w
	}
	return new(workspace[T])
}

// gemmArgs is one call of gemm, shared by the goroutines that split it.
type gemmArgs[T Float] struct {
	d           *driver[T]
	tA, tB      bool
	m, n, k     int
	alpha, beta T
	a, b, c     []T
	lda, ldb    int
	ldc         int
	// cols, if not nil, is op(B): the column matrix of images (tB false)
	// or its transpose (tB true), packed from the images (colgemm.go); b
	// is nil.
	cols *colSrc[T]
}

func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmDriver.gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	dgemmDriver.gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (d *driver[T]) gemm(tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	checkDims(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if n < d.nr && m >= 2*n && n > 0 && k > 0 {
		d.narrow(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if beta != 0 && k > blockK {
		// Partial sums live in C: keep beta·C aside and add it at the end,
		// as the kernel's epilogue would.
		w := d.getWorkspace()
		keep := grow(&w.tile, m*n)
		for i := 0; i < m; i++ {
			copy(keep[i*n:(i+1)*n], c[i*ldc:i*ldc+n])
		}
		d.split(gemmArgs[T]{d, tA, tB, m, n, k, 1, 0, a, b, c, lda, ldb, ldc, nil})
		for i := 0; i < m; i++ {
			row, kr := c[i*ldc:i*ldc+n], keep[i*n:(i+1)*n]
			for j, v := range row {
				row[j] = fmaT(alpha, v, beta*kr[j])
			}
		}
		d.ws.Put(w)
		return
	}
	d.split(gemmArgs[T]{d, tA, tB, m, n, k, alpha, beta, a, b, c, lda, ldb, ldc, nil})
}

// narrow computes a product with fewer columns than the kernel's tile is
// wide (n < nr: every tile would be an edge tile, half of it wasted) as
// its transpose Cᵀ = op(B)ᵀ·op(A)ᵀ, whose n rows fill whole tiles, then
// writes C from Cᵀ as the kernel's epilogue would. Each element is the
// same chain of FMAs over the sum (x·y+z = y·x+z), so the bits are those
// of the direct product.
func (d *driver[T]) narrow(tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	w := d.getWorkspace()
	t := grow(&w.swap, n*m)
	d.split(gemmArgs[T]{d, !tB, !tA, n, m, k, 1, 0, b, a, t, ldb, lda, m, nil})
	row := grow(&w.row, n)
	for i := 0; i < m; i++ {
		for j := range row {
			row[j] = t[j*m+i]
		}
		storeRow(c[i*ldc:i*ldc+n], row, alpha, beta)
	}
	d.ws.Put(w)
}

func checkDims(tA, tB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	ra, ca := m, k
	if tA {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB {
		rb, cb = n, k
	}
	switch {
	case m < 0 || n < 0 || k < 0:
		panic("gemm: negative dimension")
	case lda < max(1, ca) || ldb < max(1, cb) || ldc < max(1, n):
		panic("gemm: bad leading dimension")
	case la < (ra-1)*lda+ca || lb < (rb-1)*ldb+cb || lc < (m-1)*ldc+n:
		panic("gemm: slice too short")
	}
}

// part is one goroutine's share of a call: rows [i0, i1) or columns
// [j0, j1) of C.
type part[T Float] struct {
	args           *gemmArgs[T]
	i0, i1, j0, j1 int
	wg             *sync.WaitGroup
}

func (p *part[T]) work() {
	p.run()
	p.wg.Done()
}

// splitState is the reusable memory of one split call.
type splitState[T Float] struct {
	args  gemmArgs[T]
	parts [64]part[T]
	wg    sync.WaitGroup
}

// split runs s on as many goroutines as its size is worth, each on whole
// panels of rows (mr) or columns (nr) of C.
func (d *driver[T]) split(s gemmArgs[T]) {
	g := maxGoroutine
	if g <= 0 {
		g = runtime.GOMAXPROCS(0)
	}
	flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
	if g > 1 && flops >= float64(parallelMin) {
		g = min(g, int(flops/float64(parallelMin/2)), 64)
	} else {
		g = 1
	}
	// Split the longer side of C, in whole panels.
	byRows := s.m > s.n
	total, unit := s.n, d.nr
	if byRows {
		total, unit = s.m, d.mr
	}
	panels := (total + unit - 1) / unit
	g = min(g, panels)
	if g <= 1 {
		p := part[T]{args: &s, i0: 0, i1: s.m, j0: 0, j1: s.n}
		p.run()
		return
	}
	st, ok := d.splits.Get().(*splitState[T])
	if !ok {
		st = new(splitState[T])
	}
	st.args = s
	for i := 0; i < g; i++ {
		lo, hi := panels*i/g*unit, min(panels*(i+1)/g*unit, total)
		p := &st.parts[i]
		*p = part[T]{args: &st.args, i0: 0, i1: s.m, j0: 0, j1: s.n, wg: &st.wg}
		if byRows {
			p.i0, p.i1 = lo, hi
		} else {
			p.j0, p.j1 = lo, hi
		}
	}
	st.wg.Add(g - 1)
	for i := 1; i < g; i++ {
		submit(&st.parts[i])
	}
	st.parts[0].run()
	help()
	st.wg.Wait()
	for i := range st.parts[:g] {
		st.parts[i] = part[T]{}
	}
	st.args = gemmArgs[T]{}
	d.splits.Put(st)
}

// run computes rows [i0, i1) and columns [j0, j1) of C.
func (p *part[T]) run() {
	s := p.args
	d := s.d
	w := d.getWorkspace()
	mr, nr, kernel := d.mr, d.nr, d.fn
	// Operands already laid out as panels (op(B) not transposed, op(A)
	// transposed) are read in place, with their leading dimension as the
	// step; only their last, partial panel is packed. op(A) is packed
	// after all in blocks of d.packAFrom or more panels of op(B).
	directB := s.cols == nil && !s.tB && (d.packBFrom == 0 || (p.i1-p.i0+mr-1)/mr < d.packBFrom)
	// The block of op(B) stays at blockK×blockN float32s, 1 MB, the L2
	// cache: float64 takes half the columns (NN 128×3136×1024 in float64:
	// 64 → 75 GFLOP/s).
	bn := blockN * 4 / int(unsafe.Sizeof(T(0)))
	for jc := p.j0; jc < p.j1; jc += bn {
		nb := min(bn, p.j1-jc)
		npan := (nb + nr - 1) / nr
		directA := s.tA && (d.packAFrom == 0 || npan < d.packAFrom) && (s.cols == nil || s.cols.blkA.IsZero())
		for pc := 0; pc < s.k; pc += blockK {
			kb := min(blockK, s.k-pc)
			alpha, beta := T(1), T(0)
			if pc+kb == s.k {
				alpha, beta = s.alpha, s.beta
			}
			load := pc > 0
			var bp []T
			switch {
			case s.cols != nil:
				bp = grow(&w.bp, npan*nr*kb)
				d.packCols(w, s.cols, bp, s.tB, pc, kb, jc, nb, nr)
			case directB:
				if last := (npan - 1) * nr; nb-last < nr {
					bp = grow(&w.bp, nr*kb)
					d.packB(bp, s.tB, s.b, s.ldb, pc, kb, jc+last, nb-last, nr)
				}
			default:
				bp = grow(&w.bp, npan*nr*kb)
				d.packB(bp, s.tB, s.b, s.ldb, pc, kb, jc, nb, nr)
			}
			for ic := p.i0; ic < p.i1; ic += blockM {
				mb := min(blockM, p.i1-ic)
				mpan := (mb + mr - 1) / mr
				var ap []T
				if directA {
					if last := (mpan - 1) * mr; mb-last < mr {
						ap = grow(&w.ap, mr*kb)
						d.packA(ap, s.tA, s.a, s.lda, ic+last, mb-last, pc, kb, mr)
					}
				} else {
					ap = grow(&w.ap, mpan*mr*kb)
					d.packA(ap, s.tA, s.a, s.lda, ic, mb, pc, kb, mr)
					s.cols.roundA(ap, kb, mb, mr) // colgemm_block.go
				}
				for ir := 0; ir < mpan; ir++ {
					rows := min(mr, mb-ir*mr)
					var apan *T
					as := mr
					switch {
					case !directA:
						apan = &ap[ir*mr*kb]
					case rows == mr:
						apan, as = &s.a[pc*s.lda+ic+ir*mr], s.lda
					default:
						apan = &ap[0]
					}
					for jr := 0; jr < npan; jr++ {
						cols := min(nr, nb-jr*nr)
						var bpan *T
						bs := nr
						switch {
						case !directB:
							bpan = &bp[jr*nr*kb]
						case cols == nr:
							bpan, bs = &s.b[pc*s.ldb+jc+jr*nr], s.ldb
						default:
							bpan = &bp[0]
						}
						ci := (ic+ir*mr)*s.ldc + jc + jr*nr
						if rows == mr && cols == nr {
							kernel(kb, apan, as, bpan, bs, &s.c[ci], s.ldc, alpha, beta, load)
							continue
						}
						d.edgeTile(w, kb, apan, as, bpan, bs, s.c[ci:], s.ldc, rows, cols, alpha, beta, load)
					}
				}
			}
		}
	}
	d.ws.Put(w)
}

// edgeTile runs the kernel on a rows×cols corner tile through a full
// mr×nr tile in w.
func (d *driver[T]) edgeTile(w *workspace[T], kb int, apan *T, as int, bpan *T, bs int, c []T, ldc, rows, cols int, alpha, beta T, load bool) {
	mr, nr := d.mr, d.nr
	t := grow(&w.tile, mr*nr)
	if load {
		for i := 0; i < rows; i++ {
			copy(t[i*nr:i*nr+cols], c[i*ldc:i*ldc+cols])
		}
	}
	d.fn(kb, apan, as, bpan, bs, &t[0], nr, 1, 0, load)
	for i := 0; i < rows; i++ {
		storeRow(c[i*ldc:i*ldc+cols], t[i*nr:i*nr+cols], alpha, beta)
	}
}

// packA packs rows [i0, i0+mb) and sum steps [p0, p0+kb) of op(A) into
// panels of mr rows: dst[(panel·kb + l)·mr + r]; rows past mb are zero.
func (d *driver[T]) packA(dst []T, tA bool, a []T, lda, i0, mb, p0, kb, mr int) {
	for pan := 0; pan*mr < mb; pan++ {
		dp := dst[pan*mr*kb : (pan+1)*mr*kb]
		rows := min(mr, mb-pan*mr)
		r0 := i0 + pan*mr
		if tA {
			// op(A)[i][l] = a[l·lda + i]: each step's rows are contiguous.
			if rows == mr {
				d.copyPanel(dp, mr, a[p0*lda+r0:], lda, kb)
				continue
			}
			for l := 0; l < kb; l++ {
				src := a[(p0+l)*lda+r0 : (p0+l)*lda+r0+rows]
				dl := dp[l*mr : l*mr+mr]
				copy(dl, src)
				clear(dl[rows:])
			}
			continue
		}
		d.transposeInto(dp, mr, a[r0*lda+p0:], lda, rows, kb)
		for r := rows; r < mr; r++ {
			for l := 0; l < kb; l++ {
				dp[l*mr+r] = 0
			}
		}
	}
}

// packB packs sum steps [p0, p0+kb) and columns [j0, j0+nb) of op(B) into
// panels of nr columns: dst[(panel·kb + l)·nr + c]; columns past nb are
// zero.
func (d *driver[T]) packB(dst []T, tB bool, b []T, ldb, p0, kb, j0, nb, nr int) {
	for pan := 0; pan*nr < nb; pan++ {
		dp := dst[pan*nr*kb : (pan+1)*nr*kb]
		cols := min(nr, nb-pan*nr)
		c0 := j0 + pan*nr
		if !tB {
			if cols == nr {
				d.copyPanel(dp, nr, b[p0*ldb+c0:], ldb, kb)
				continue
			}
			for l := 0; l < kb; l++ {
				src := b[(p0+l)*ldb+c0 : (p0+l)*ldb+c0+cols]
				dl := dp[l*nr : l*nr+nr]
				copy(dl, src)
				clear(dl[cols:])
			}
			continue
		}
		// op(B)[l][j] = b[j·ldb + l].
		d.transposeInto(dp, nr, b[c0*ldb+p0:], ldb, cols, kb)
		for c := cols; c < nr; c++ {
			for l := 0; l < kb; l++ {
				dp[l*nr+c] = 0
			}
		}
	}
}

// copyPanel sets dst[l·w + t] = src[l·lds + t] for l < kb and t < w:
// a panel of kb steps w wide from a matrix of row stride lds, with the
// level's row copy where it has one (copy's memmove per row takes longer
// than the move itself for the 24 to 128 bytes of a tile's row).
func (d *driver[T]) copyPanel(dst []T, w int, src []T, lds, kb int) {
	if kb <= 0 {
		return
	}
	_ = dst[kb*w-1]
	_ = src[(kb-1)*lds+w-1]
	size := int(unsafe.Sizeof(T(0)))
	if d.copyRows != nil && slices.Contains(copyWidths[:], w*size) {
		d.copyRows(unsafe.Pointer(&dst[0]), w*size, unsafe.Pointer(&src[0]), lds*size, w*size, kb)
		return
	}
	for l := 0; l < kb; l++ {
		copy(dst[l*w:l*w+w], src[l*lds:l*lds+w])
	}
}

// copyWidths are the row widths, in bytes, of the level's copyRows.
var copyWidths = [...]int{24, 32, 48, 64, 128}

// transposeInto sets dst[l·ldd + r] = src[r·lds + l] for r < rows,
// l < cols.
func (d *driver[T]) transposeInto(dst []T, ldd int, src []T, lds, rows, cols int) {
	if rows == 6 && cols >= 8 && d.transpose6 != nil {
		ct := cols &^ 7
		_ = dst[(ct-1)*ldd+5]
		_ = src[5*lds+ct-1]
		d.transpose6(&dst[0], ldd, &src[0], lds, ct)
		for l := ct; l < cols; l++ {
			for i := range 6 {
				dst[l*ldd+i] = src[i*lds+l]
			}
		}
		return
	}
	r := 0
	if tw := d.tw; d.transpose != nil && cols >= tw {
		ct := cols &^ (tw - 1)
		_ = dst[(ct-1)*ldd+rows-1]
		for ; r+tw <= rows; r += tw {
			_ = src[(r+tw-1)*lds+ct-1]
			d.transpose(&dst[r], ldd, &src[r*lds], lds, ct)
			for l := ct; l < cols; l++ {
				for i := r; i < r+tw; i++ {
					dst[l*ldd+i] = src[i*lds+l]
				}
			}
		}
	}
	for ; r < rows; r++ {
		for l, v := range src[r*lds : r*lds+cols] {
			dst[l*ldd+r] = v
		}
	}
}

// useKernel makes k the kernel of T's GEMM and returns the one it
// replaces.
func useKernel[T Float](k kernelInfo[T]) kernelInfo[T] {
	d := driverOf[T]()
	old := d.kernelInfo
	d.kernelInfo = k
	return old
}
