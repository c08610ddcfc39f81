//go:build !openblas

package gemm

import (
	"slices"
	"sync"
)

// ConvForward is a convolution's forward product without its column
// matrix (an implicit GEMM): it sets y, the outC × g.Cols() output of one
// image (rows ldy apart), to w·Im2col(x) plus bias[o] on row o (bias nil:
// none), where x is one C×H×W image and w the outC × g.Rows() weights.
// The bits are those of Im2col into a matrix col, Gemm(false, false, outC,
// g.Cols(), g.Rows(), 1, w, g.Rows(), col, g.Cols(), 0, y, ldy) and then
// y[o][j] += bias[o]: every element of y is the same chain of FMAs over
// the sum, in the same order (sgemm.go), started from zero, and the bias
// is added once, after it.
//
// The column matrix of a 3×3 convolution is nine times its input: packing
// it costs as much memory traffic as the product costs time on the
// layers' shapes, and the driver then reads its panels from rows far
// apart (26–46 GFLOP/s on ESRGAN's layers where the kernel peaks near
// 150). ConvForward works panel by panel of nr output positions, running
// every row panel of the weights on it while its inputs are in the L1
// cache. With AVX-512, a panel of stride-1 positions in one output row is
// not packed at all: the kernel reads each tap's nr inputs straight from
// the image through a table of offsets (convKernelAVX512), and at the
// image's border under a mask of the lanes inside it, the padding read as
// zeros (convKernelMaskAVX512). Other panels are packed from the image,
// kb steps of the sum at a time.
func ConvForward[T Float](y []T, ldy int, w []T, outC int, x []T, g Geom, bias []T) {
	k, p := g.Rows(), g.Cols()
	switch {
	case outC < 0 || ldy < max(1, p):
		panic("gemm: conv: bad dimensions")
	case len(x) < g.C*g.H*g.W || len(w) < outC*k || (outC > 0 && len(y) < (outC-1)*ldy+p) || (bias != nil && len(bias) < outC):
		panic("gemm: conv: slice too short")
	}
	if outC == 0 || p == 0 {
		return
	}
	d := driverOf[T]()
	s, ok := d.convs().Get().(*convCall[T])
	if !ok {
		s = new(convCall[T])
	}
	s.set(d, y, ldy, w, outC, x, g, bias)
	npan := (p + d.nr - 1) / d.nr
	chunks := (npan + convChunk - 1) / convChunk
	if flops := 2 * float64(outC) * float64(p) * float64(k); flops < float64(parallelMin) || chunks == 1 {
		for i := range chunks {
			s.Each(i)
		}
	} else {
		ForEaches(chunks, chunks*minWork, s)
	}
	s.y, s.w, s.x, s.bias, s.xp = nil, nil, nil, nil, nil
	d.convs().Put(s)
}

// convChunk is the number of panels of output positions one goroutine
// takes at a time.
const convChunk = 8

var convCalls32, convCalls64 sync.Pool // *convCall[float32], *convCall[float64]

func (d *driver[T]) convs() *sync.Pool {
	if _, ok := any(d).(*driver[float32]); ok {
		return &convCalls32
	}
	return &convCalls64
}

// convTap is what one row of the column matrix, a kernel tap (c, i, j),
// reads: the input at offset off + oy·SH·W + ox·SW, for output rows in ys
// and columns in xs.
type convTap struct {
	off    int
	ys, xs span
}

// convCall is one ConvForward call, shared by the goroutines that split
// it; it is reused through a pool.
type convCall[T Float] struct {
	d        *driver[T]
	y, w, x  []T
	bias     []T
	ldy, m   int
	g        Geom
	ap       []T // the weights packed in row panels, kb steps of the sum at a time
	mp       int // m rounded up to the panel height
	taps     []convTap
	spanBuf  [16]span
	spanHeap []span

	// With a kernel that reads B by offsets (tapKernel), a panel of nr
	// positions in one output row, at stride 1, is not packed at all: the
	// kernel reads tap l at xp[base + offs[l]], xp the image.
	tk    func(k int, a *T, b *T, offs *int, c *T, ldc int, load bool, bias *T)
	xp    []T
	offs  []int
	wp    int // xp's row length
	base0 int // where position (0, 0)'s taps start in xp, less offs[l]

	// With mk, the kernel that reads B under masks, x is not padded: the
	// panels of positions in yAll × xAll read only the image, the others
	// mask off their taps in the padding.
	mk         func(k int, a *T, b *T, base int, offs *int, masks *uint32, c *T, ldc int, load bool, bias *T)
	yAll, xAll span
	// The masks of the taps for each class of border panel: row class r
	// (rowKeys[r], an output row outside yAll, or the last: any inside)
	// and column class c (colKeys[c] likewise, a panel's first column)
	// at masks[(r·len(colKeys) + c)·K:].
	rowKeys, colKeys []int
	masks            []uint32
}

func (s *convCall[T]) set(d *driver[T], y []T, ldy int, w []T, m int, x []T, g Geom, bias []T) {
	s.d, s.y, s.ldy, s.w, s.m, s.x, s.g, s.bias = d, y, ldy, w, m, x, g, bias
	mr, k := d.mr, g.Rows()
	s.mp = (m + mr - 1) / mr * mr
	// Block pc of the sum (kb steps) is at pc·mp, its row panel r at
	// pc·mp + r·mr·kb: packA's layout, block after block.
	ap := grow(&s.ap, s.mp*k)
	for pc := 0; pc < k; pc += blockK {
		kb := min(blockK, k-pc)
		d.packA(ap[pc*s.mp:], false, w, k, 0, m, pc, kb, mr)
	}
	buf := s.spanBuf[:]
	if g.KH+g.KW > len(buf) {
		buf = grow(&s.spanHeap, g.KH+g.KW)
	}
	ys, xs := kernelSpans(g, buf)
	taps := grow(&s.taps, k)
	l := 0
	for c := 0; c < g.C; c++ {
		for i := 0; i < g.KH; i++ {
			for j := 0; j < g.KW; j++ {
				taps[l] = convTap{off: c*g.H*g.W + (i-g.PH)*g.W + j - g.PW, ys: ys[i], xs: xs[j]}
				l++
			}
		}
	}
	s.tk, s.mk = nil, nil
	if g.SW != 1 || g.OW < d.nr {
		return
	}
	if s.tk = tapKernel(d); s.tk == nil {
		return
	}
	if s.mk = maskKernel(d); s.mk == nil {
		s.tk = nil
		return
	}
	// Taps in the padding are masked off at the border panels: the image
	// is read in place, not copied with its padding. Position (oy, ox)
	// starts at oy·SH·W + ox + base0, tap l at offs[l] from there.
	s.xp, s.wp, s.base0 = x, g.W, -g.PH*g.W-g.PW
	s.yAll, s.xAll = span{0, g.OH}, span{0, g.OW}
	for _, y := range ys {
		s.yAll = span{max(s.yAll.lo, y.lo), min(s.yAll.hi, y.hi)}
	}
	for _, x := range xs {
		s.xAll = span{max(s.xAll.lo, x.lo), min(s.xAll.hi, x.hi)}
	}
	offs := grow(&s.offs, k)
	l = 0
	for c := 0; c < g.C; c++ {
		for i := 0; i < g.KH; i++ {
			for j := 0; j < g.KW; j++ {
				offs[l] = (c*g.H+i)*s.wp + j
				l++
			}
		}
	}
	s.rowKeys, s.colKeys = s.rowKeys[:0], s.colKeys[:0]
	for oy := range g.OH {
		if oy < s.yAll.lo || oy >= s.yAll.hi {
			s.rowKeys = append(s.rowKeys, oy)
		}
	}
	s.rowKeys = append(s.rowKeys, max(s.yAll.lo, 0)) // any row inside: all taps in
	// Panels start at multiples of nr of the positions: in a row of OW
	// not a multiple of nr, at any column.
	for j0 := 0; j0 < g.Cols(); j0 += d.nr {
		if ox := j0 % g.OW; ox+d.nr <= g.OW && (ox < s.xAll.lo || ox+d.nr > s.xAll.hi) && !slices.Contains(s.colKeys, ox) {
			s.colKeys = append(s.colKeys, ox)
		}
	}
	slices.Sort(s.colKeys)
	s.colKeys = append(s.colKeys, -1) // any panel inside: all lanes in
	masks := grow(&s.masks, len(s.rowKeys)*len(s.colKeys)*k)
	for r, oy := range s.rowKeys {
		inRow := r == len(s.rowKeys)-1
		for c, ox := range s.colKeys {
			m := masks[(r*len(s.colKeys)+c)*k : (r*len(s.colKeys)+c+1)*k]
			for l, t := range taps {
				m[l] = 0
				if inRow || (oy >= t.ys.lo && oy < t.ys.hi) {
					m[l] = 1<<32 - 1
					if c < len(s.colKeys)-1 {
						lo, hi := min(max(t.xs.lo-ox, 0), d.nr), min(max(t.xs.hi-ox, 0), d.nr)
						m[l] = uint32(uint64(1)<<hi - uint64(1)<<lo)
					}
				}
			}
		}
	}
}

// class returns the index of v in keys, all but the last of which are
// sorted, or the last index if v is not among them.
func class(keys []int, v int) int {
	for i, k := range keys[:len(keys)-1] {
		if k == v {
			return i
		}
		if k > v {
			break
		}
	}
	return len(keys) - 1
}

// Each computes panels [i·convChunk, (i+1)·convChunk) of output positions.
func (s *convCall[T]) Each(i int) {
	d, g := s.d, s.g
	nr, p := d.nr, g.Cols()
	w := d.getWorkspace()
	for j0 := i * convChunk * nr; j0 < min(p, (i+1)*convChunk*nr); j0 += nr {
		cols := min(nr, p-j0)
		oy, ox := j0/g.OW, j0%g.OW
		switch {
		case s.tk == nil || cols != nr || ox+nr > g.OW:
			s.packedPanel(w, j0, cols)
			s.addBias(j0, cols, 0, s.m)
		case s.mk == nil || (oy >= s.yAll.lo && oy < s.yAll.hi && ox >= s.xAll.lo && ox+nr <= s.xAll.hi):
			s.tapPanel(w, j0, oy*g.SH*s.wp+ox+s.base0)
		default:
			s.maskPanel(w, j0, oy, ox)
		}
	}
	d.ws.Put(w)
}

// addBias adds bias[o] to columns [j0, j0+cols) of rows [o0, o1) of y.
func (s *convCall[T]) addBias(j0, cols, o0, o1 int) {
	if s.bias == nil {
		return
	}
	for o := o0; o < o1; o++ {
		b := s.bias[o]
		row := s.y[o*s.ldy+j0 : o*s.ldy+j0+cols]
		for t := range row {
			row[t] += b
		}
	}
}

// tileBias returns the bias of the mr rows from o for a kernel to add as
// it stores the last block (pc + kb = k) of a sum, or nil.
func (s *convCall[T]) tileBias(o int, last bool) *T {
	if s.bias == nil || !last {
		return nil
	}
	return &s.bias[o]
}

// tapPanel computes the nr output positions from j0, whose taps the kernel
// reads from xp[base + offs[l]].
func (s *convCall[T]) tapPanel(w *workspace[T], j0, base int) {
	s.inPlacePanel(w, j0, func(pc, kb int, apan, c *T, ldc int, load bool, bias *T) {
		s.tk(kb, apan, &s.xp[base], &s.offs[pc], c, ldc, load, bias)
	})
}

// maskPanel computes the nr output positions from j0 = (oy, ox), at the
// border, reading each tap from the image under the mask of its lanes
// inside it.
func (s *convCall[T]) maskPanel(w *workspace[T], j0, oy, ox int) {
	k, g := s.g.Rows(), s.g
	cl := class(s.rowKeys, oy)*len(s.colKeys) + class(s.colKeys, ox)
	masks := s.masks[cl*k : (cl+1)*k]
	base := oy*g.SH*s.wp + ox + s.base0
	s.inPlacePanel(w, j0, func(pc, kb int, apan, c *T, ldc int, load bool, bias *T) {
		s.mk(kb, apan, &s.x[0], base, &s.offs[pc], &masks[pc], c, ldc, load, bias)
	})
}

// inPlacePanel computes the nr output positions from j0 with a kernel
// that reads the taps in place: tile(pc, kb, apan, c, ldc, load, bias)
// runs it on block pc (kb long) of the sum for the mr rows of A's panel
// apan into c. The last rows of an m not a multiple of mr go through a
// whole tile, their bias added after the sum as the kernel's store does.
func (s *convCall[T]) inPlacePanel(w *workspace[T], j0 int, tile func(pc, kb int, apan, c *T, ldc int, load bool, bias *T)) {
	mr, nr, k := s.d.mr, s.d.nr, s.g.Rows()
	for pc := 0; pc < k; pc += blockK {
		kb := min(blockK, k-pc)
		load := pc > 0
		for ir := 0; ir*mr < s.m; ir++ {
			rows := min(mr, s.m-ir*mr)
			apan := &s.ap[pc*s.mp+ir*mr*kb]
			ci := ir*mr*s.ldy + j0
			if rows == mr {
				tile(pc, kb, apan, &s.y[ci], s.ldy, load, s.tileBias(ir*mr, pc+kb == k))
				continue
			}
			t := grow(&w.tile, mr*nr)
			if load {
				for i := 0; i < rows; i++ {
					copy(t[i*nr:(i+1)*nr], s.y[ci+i*s.ldy:ci+i*s.ldy+nr])
				}
			}
			tile(pc, kb, apan, &t[0], nr, load, nil)
			for i := 0; i < rows; i++ {
				copy(s.y[ci+i*s.ldy:ci+i*s.ldy+nr], t[i*nr:(i+1)*nr])
			}
			if pc+kb == k {
				s.addBias(j0, nr, ir*mr, s.m)
			}
		}
	}
}

// packedPanel computes the cols ≤ nr output positions from j0, packing
// their taps.
func (s *convCall[T]) packedPanel(w *workspace[T], j0, cols int) {
	d := s.d
	mr, nr, k := d.mr, d.nr, s.g.Rows()
	for pc := 0; pc < k; pc += blockK {
		kb := min(blockK, k-pc)
		bp := grow(&w.bp, kb*nr)
		s.packB(bp, pc, kb, j0, cols, nr)
		load := pc > 0
		for ir := 0; ir*mr < s.m; ir++ {
			rows := min(mr, s.m-ir*mr)
			apan := &s.ap[pc*s.mp+ir*mr*kb]
			ci := ir*mr*s.ldy + j0
			if rows == mr && cols == nr {
				d.fn(kb, apan, mr, &bp[0], nr, &s.y[ci], s.ldy, 1, 0, load)
				continue
			}
			d.edgeTile(w, kb, apan, mr, &bp[0], nr, s.y[ci:], s.ldy, rows, cols, 1, 0, load)
		}
	}
}

// packB sets dst[l·nr + t], for l < kb and t < nr, to row pc+l and column
// j0+t of the column matrix of s's image: zero past cols, and where the
// tap falls in the padding.
func (s *convCall[T]) packB(dst []T, pc, kb, j0, cols, nr int) {
	g := s.g
	ow := g.OW
	oy, ox := j0/ow, j0%ow
	for l, t := range s.taps[pc : pc+kb] {
		d := dst[l*nr : l*nr+nr]
		done := 0
		for r, c := oy, ox; done < cols; r, c = r+1, 0 {
			n := min(ow-c, cols-done)
			if r < t.ys.lo || r >= t.ys.hi {
				clear(d[done : done+n])
			} else {
				s.packSeg(d[done:done+n], t, r, c, n)
			}
			done += n
		}
		clear(d[cols:])
	}
}

// packSeg sets d[:n] to tap t's inputs for output row oy (in the image)
// and columns ox, …, ox+n-1: zero outside t.xs.
func (s *convCall[T]) packSeg(d []T, t convTap, oy, ox, n int) {
	g := s.g
	lo, hi := min(max(t.xs.lo-ox, 0), n), min(max(t.xs.hi-ox, 0), n)
	if lo >= hi {
		clear(d[:n])
		return
	}
	clear(d[:lo])
	clear(d[hi:n])
	src := t.off + oy*g.SH*g.W + (ox+lo)*g.SW
	if g.SW == 1 {
		copy(d[lo:hi], s.x[src:src+hi-lo])
		return
	}
	x := s.x[src : src+(hi-lo-1)*g.SW+1]
	for q := range d[lo:hi] {
		d[lo+q] = x[q*g.SW]
	}
}
