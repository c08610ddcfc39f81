//go:build linux

package gemm

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"

	"github.com/positgan/positgan/quant"
)

// fenced returns n float32 between two inaccessible pages, starting right
// after the first (atEnd false) or ending right before the second, and a
// function that releases them: a kernel that touches a value outside the
// slice, even in a vector's lane, faults.
func fenced(t *testing.T, n int, atEnd bool) ([]float32, func()) {
	t.Helper()
	page := syscall.Getpagesize()
	body := (4*n + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, body+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	if syscall.Mprotect(mem[:page], syscall.PROT_NONE) != nil || syscall.Mprotect(mem[page+body:], syscall.PROT_NONE) != nil {
		syscall.Munmap(mem)
		t.Skip("mprotect failed")
	}
	off := page
	if atEnd {
		off = page + body - 4*n
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&mem[off])), n), func() { syscall.Munmap(mem) }
}

// TestCol2im42Fenced runs Col2imBatch on one image of 4×4 stride-2
// geometries, its column matrix and its image each at the start and at
// the end of accessible memory, at every level: col2im42Fast's kernel
// reads no entry before or after its column matrix (the shifted loads of
// the first and last columns are masked) and writes no pixel outside
// the image.
func TestCol2im42Fenced(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(42, 30))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, sz := range [][2]int{{1, 1}, {1, 9}, {2, 7}, {3, 8}, {7, 7}, {5, 16}, {14, 14}, {4, 17}} {
			g := k4s2p1(1, sz[0], sz[1])
			for _, atEnd := range []bool{false, true} {
				col, free1 := fenced(t, g.Rows()*g.Cols(), atEnd)
				img, free2 := fenced(t, g.C*g.H*g.W, atEnd)
				copy(col, spread[float32](rng, len(col)))
				want := make([]float32, len(img))
				refCol2im(want, col, g.Cols(), g)
				Col2imBatch(img, col, 1, g)
				if i := firstDiff(img, want); i >= 0 {
					t.Fatalf("%v %v at end %v: pixel %d = %v, want %v", l, sz, atEnd, i, img[i], want[i])
				}
				free2()
				free1()
			}
		}
	}
}

// TestPadFenced runs PadImages on one plane at the start and at the end
// of accessible memory, source and padded plane both, at every level:
// the kernel's masked loads read nothing outside the source rows (the
// first chunk's starts pw pixels before them) and its stores write
// nothing outside the padded plane.
func TestPadFenced(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(42, 31))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, sz := range [][3]int{{1, 1, 1}, {3, 7, 1}, {14, 14, 1}, {5, 9, 3}, {2, 17, 9}, {4, 8, 0}} {
			g := Geom{C: 1, H: sz[0], W: sz[1], PH: sz[2], PW: sz[2]}
			for _, atEnd := range []bool{false, true} {
				x, free1 := fenced(t, g.H*g.W, atEnd)
				xp, free2 := fenced(t, (g.H+2*g.PH)*(g.W+2*g.PW), atEnd)
				copy(x, spread[float32](rng, len(x)))
				want := make([]float32, len(xp))
				refPad(want, x, 1, g)
				PadImages(xp, x, 1, g)
				if i := firstDiff(xp, want); i >= 0 {
					t.Fatalf("%v %v at end %v: [%d] = %v, want %v", l, sz, atEnd, i, xp[i], want[i])
				}
				free2()
				free1()
			}
		}
	}
}
