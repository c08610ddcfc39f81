//go:build !openblas

package gemm

import (
	"runtime"
	"sync"
)

// The float32 GEMM of the default build: BLIS-style blocking around a
// register-blocked micro-kernel (sgemm_amd64.s for AVX-512 and AVX2,
// kernelGo elsewhere).
//
// For each block of blockN columns of C and each block of blockK steps of
// the sum, the block of op(B) is packed into panels nr columns wide; for
// each block of blockM rows, op(A) is packed into panels mr rows high; the
// kernel then runs on every mr×nr tile. Blocks of the sum after the first
// reload the partial sums from C, so each element of C is a single chain
// of FMAs over the whole sum: the bits do not depend on the blocking, the
// kernel, the alignment of the slices or the number of goroutines.
// Large products are split across goroutines by blocks of rows or columns
// of C, never along the sum.

const (
	blockK = 256
	blockM = 192
	blockN = 1024
)

// kernel is the micro-kernel in use and its tile; set once by init.
var (
	kernel        kernelFunc = kernelGo
	kernelMR      int        = mrGo
	kernelNR      int        = nrGo
	kernelName    string     = "go"
	hasTranspose8            = false   // transpose8 is there (amd64 with AVX)
	useDirect                = true    // read panel-shaped operands in place
	parallelMin              = 1 << 21 // flops below which one goroutine does all
	maxGoroutine             = 0       // 0: GOMAXPROCS
)

// sgemmWorkspace holds one goroutine's packed panels and an edge tile.
type sgemmWorkspace struct {
	ap, bp, tile []float32
	swap, row    []float32 // Cᵀ and one row of C, for narrow products
}

var wsPool = sync.Pool{New: func() any { return new(sgemmWorkspace) }}

// sgemmArgs is one call of sgemm, shared by the goroutines that split it.
type sgemmArgs struct {
	tA, tB      bool
	m, n, k     int
	alpha, beta float32
	a, b, c     []float32
	lda, ldb    int
	ldc         int
}

func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkSgemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
	if n < kernelNR && m >= 2*n && n > 0 && k > 0 {
		sgemmNarrow(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if beta != 0 && k > blockK {
		// Partial sums live in C: keep beta·C aside and add it at the end,
		// as the kernel's epilogue would.
		w := wsPool.Get().(*sgemmWorkspace)
		keep := grow32(&w.tile, m*n)
		for i := 0; i < m; i++ {
			copy(keep[i*n:(i+1)*n], c[i*ldc:i*ldc+n])
		}
		sgemmSplit(sgemmArgs{tA, tB, m, n, k, 1, 0, a, b, c, lda, ldb, ldc})
		for i := 0; i < m; i++ {
			row, kr := c[i*ldc:i*ldc+n], keep[i*n:(i+1)*n]
			for j, v := range row {
				row[j] = fma32(alpha, v, beta*kr[j])
			}
		}
		wsPool.Put(w)
		return
	}
	sgemmSplit(sgemmArgs{tA, tB, m, n, k, alpha, beta, a, b, c, lda, ldb, ldc})
}

// sgemmNarrow computes a product with fewer columns than the kernel's
// tile is wide (n < nr: every tile would be an edge tile, half of it
// wasted) as its transpose Cᵀ = op(B)ᵀ·op(A)ᵀ, whose n rows fill whole
// tiles, then writes C from Cᵀ as the kernel's epilogue would. Each
// element is the same chain of FMAs over the sum (x·y+z = y·x+z), so
// the bits are those of the direct product.
func sgemmNarrow(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	w := wsPool.Get().(*sgemmWorkspace)
	t := grow32(&w.swap, n*m)
	sgemmSplit(sgemmArgs{!tB, !tA, n, m, k, 1, 0, b, a, t, ldb, lda, m})
	row := grow32(&w.row, n)
	for i := 0; i < m; i++ {
		for j := range row {
			row[j] = t[j*m+i]
		}
		storeRow(c[i*ldc:i*ldc+n], row, alpha, beta)
	}
	wsPool.Put(w)
}

func checkSgemm(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
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
	case len(a) < (ra-1)*lda+ca || len(b) < (rb-1)*ldb+cb || len(c) < (m-1)*ldc+n:
		panic("gemm: slice too short")
	}
}

// part is one goroutine's share of a call: rows [i0, i1) or columns
// [j0, j1) of C.
type part struct {
	args           *sgemmArgs
	i0, i1, j0, j1 int
	wg             *sync.WaitGroup
}

var (
	workers     chan *part
	workersOnce sync.Once
)

func startWorkers() {
	n := runtime.NumCPU()
	workers = make(chan *part, 4*n)
	for i := 0; i < n; i++ {
		go func() {
			for p := range workers {
				p.run()
				p.wg.Done()
			}
		}()
	}
}

// splitState is the reusable memory of one split call.
type splitState struct {
	args  sgemmArgs
	parts [64]part
	wg    sync.WaitGroup
}

var splitPool = sync.Pool{New: func() any { return new(splitState) }}

// sgemmSplit runs s on as many goroutines as its size is worth, each on
// whole panels of rows (mr) or columns (nr) of C.
func sgemmSplit(s sgemmArgs) {
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
	total, unit := s.n, kernelNR
	if byRows {
		total, unit = s.m, kernelMR
	}
	panels := (total + unit - 1) / unit
	g = min(g, panels)
	if g <= 1 {
		p := part{args: &s, i0: 0, i1: s.m, j0: 0, j1: s.n}
		p.run()
		return
	}
	workersOnce.Do(startWorkers)
	st := splitPool.Get().(*splitState)
	st.args = s
	for i := 0; i < g; i++ {
		lo, hi := panels*i/g*unit, min(panels*(i+1)/g*unit, total)
		p := &st.parts[i]
		*p = part{args: &st.args, i0: 0, i1: s.m, j0: 0, j1: s.n, wg: &st.wg}
		if byRows {
			p.i0, p.i1 = lo, hi
		} else {
			p.j0, p.j1 = lo, hi
		}
	}
	st.wg.Add(g - 1)
	for i := 1; i < g; i++ {
		workers <- &st.parts[i]
	}
	st.parts[0].run()
	st.wg.Wait()
	for i := range st.parts[:g] {
		st.parts[i] = part{}
	}
	st.args = sgemmArgs{}
	splitPool.Put(st)
}

// run computes rows [i0, i1) and columns [j0, j1) of C.
func (p *part) run() {
	s := p.args
	w := wsPool.Get().(*sgemmWorkspace)
	mr, nr := kernelMR, kernelNR
	// Operands already laid out as panels (op(B) not transposed, op(A)
	// transposed) are read in place, with their leading dimension as the
	// step; only their last, partial panel is packed.
	directA, directB := s.tA && useDirect, !s.tB && useDirect
	for jc := p.j0; jc < p.j1; jc += blockN {
		nb := min(blockN, p.j1-jc)
		npan := (nb + nr - 1) / nr
		for pc := 0; pc < s.k; pc += blockK {
			kb := min(blockK, s.k-pc)
			alpha, beta := float32(1), float32(0)
			if pc+kb == s.k {
				alpha, beta = s.alpha, s.beta
			}
			load := pc > 0
			var bp []float32
			if directB {
				if last := (npan - 1) * nr; nb-last < nr {
					bp = grow32(&w.bp, nr*kb)
					packB(bp, s.tB, s.b, s.ldb, pc, kb, jc+last, nb-last, nr)
				}
			} else {
				bp = grow32(&w.bp, npan*nr*kb)
				packB(bp, s.tB, s.b, s.ldb, pc, kb, jc, nb, nr)
			}
			for ic := p.i0; ic < p.i1; ic += blockM {
				mb := min(blockM, p.i1-ic)
				mpan := (mb + mr - 1) / mr
				var ap []float32
				if directA {
					if last := (mpan - 1) * mr; mb-last < mr {
						ap = grow32(&w.ap, mr*kb)
						packA(ap, s.tA, s.a, s.lda, ic+last, mb-last, pc, kb, mr)
					}
				} else {
					ap = grow32(&w.ap, mpan*mr*kb)
					packA(ap, s.tA, s.a, s.lda, ic, mb, pc, kb, mr)
				}
				for ir := 0; ir < mpan; ir++ {
					rows := min(mr, mb-ir*mr)
					var apan *float32
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
						var bpan *float32
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
						edgeTile(w, kb, apan, as, bpan, bs, s.c[ci:], s.ldc, rows, cols, alpha, beta, load)
					}
				}
			}
		}
	}
	wsPool.Put(w)
}

// edgeTile runs the kernel on a rows×cols corner tile through a full
// mr×nr tile in w.
func edgeTile(w *sgemmWorkspace, kb int, apan *float32, as int, bpan *float32, bs int, c []float32, ldc, rows, cols int, alpha, beta float32, load bool) {
	mr, nr := kernelMR, kernelNR
	t := grow32(&w.tile, mr*nr)
	if load {
		for i := 0; i < rows; i++ {
			copy(t[i*nr:i*nr+cols], c[i*ldc:i*ldc+cols])
		}
	}
	kernel(kb, apan, as, bpan, bs, &t[0], nr, 1, 0, load)
	for i := 0; i < rows; i++ {
		storeRow(c[i*ldc:i*ldc+cols], t[i*nr:i*nr+cols], alpha, beta)
	}
}

// packA packs rows [i0, i0+mb) and sum steps [p0, p0+kb) of op(A) into
// panels of mr rows: dst[(panel·kb + l)·mr + r]; rows past mb are zero.
func packA(dst []float32, tA bool, a []float32, lda, i0, mb, p0, kb, mr int) {
	for pan := 0; pan*mr < mb; pan++ {
		d := dst[pan*mr*kb : (pan+1)*mr*kb]
		rows := min(mr, mb-pan*mr)
		r0 := i0 + pan*mr
		if tA {
			// op(A)[i][l] = a[l·lda + i]: each step's rows are contiguous.
			for l := 0; l < kb; l++ {
				src := a[(p0+l)*lda+r0 : (p0+l)*lda+r0+rows]
				dl := d[l*mr : l*mr+mr]
				copy(dl, src)
				clear(dl[rows:])
			}
			continue
		}
		transposeInto(d, mr, a[r0*lda+p0:], lda, rows, kb)
		for r := rows; r < mr; r++ {
			for l := 0; l < kb; l++ {
				d[l*mr+r] = 0
			}
		}
	}
}

// packB packs sum steps [p0, p0+kb) and columns [j0, j0+nb) of op(B) into
// panels of nr columns: dst[(panel·kb + l)·nr + c]; columns past nb are
// zero.
func packB(dst []float32, tB bool, b []float32, ldb, p0, kb, j0, nb, nr int) {
	for pan := 0; pan*nr < nb; pan++ {
		d := dst[pan*nr*kb : (pan+1)*nr*kb]
		cols := min(nr, nb-pan*nr)
		c0 := j0 + pan*nr
		if !tB {
			for l := 0; l < kb; l++ {
				src := b[(p0+l)*ldb+c0 : (p0+l)*ldb+c0+cols]
				dl := d[l*nr : l*nr+nr]
				copy(dl, src)
				clear(dl[cols:])
			}
			continue
		}
		// op(B)[l][j] = b[j·ldb + l].
		transposeInto(d, nr, b[c0*ldb+p0:], ldb, cols, kb)
		for c := cols; c < nr; c++ {
			for l := 0; l < kb; l++ {
				d[l*nr+c] = 0
			}
		}
	}
}

// transposeInto sets d[l·ldd + r] = src[r·lds + l] for r < rows, l < cols.
func transposeInto(d []float32, ldd int, src []float32, lds, rows, cols int) {
	r := 0
	if hasTranspose8 && cols >= 8 {
		c8 := cols &^ 7
		_ = d[(c8-1)*ldd+rows-1]
		for ; r+8 <= rows; r += 8 {
			_ = src[(r+7)*lds+c8-1]
			transpose8(&d[r], ldd, &src[r*lds], lds, c8)
			for l := c8; l < cols; l++ {
				for i := r; i < r+8; i++ {
					d[l*ldd+i] = src[i*lds+l]
				}
			}
		}
	}
	for ; r < rows; r++ {
		for l, v := range src[r*lds : r*lds+cols] {
			d[l*ldd+r] = v
		}
	}
}

// grow32 returns (*s)[:n], reallocating *s if it is too short.
func grow32(s *[]float32, n int) []float32 {
	if cap(*s) < n {
		*s = make([]float32, n)
	}
	*s = (*s)[:n]
	return *s
}

// kernelInfo names a micro-kernel and its tile.
type kernelInfo struct {
	name   string
	fn     kernelFunc
	mr, nr int
}

// useKernel makes k the kernel of sgemm and returns the one it replaces.
func useKernel(k kernelInfo) kernelInfo {
	old := kernelInfo{kernelName, kernel, kernelMR, kernelNR}
	kernel, kernelMR, kernelNR, kernelName = k.fn, k.mr, k.nr, k.name
	return old
}
