//go:build linux

package vec

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// pageEnd returns n float32 that end where an inaccessible page starts,
// and a function that releases them: a kernel that touches one value past
// the end (say, a masked load of a whole vector) faults.
func pageEnd(t *testing.T, n int) ([]float32, func()) {
	t.Helper()
	size := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	if err := syscall.Mprotect(mem[size:], syscall.PROT_NONE); err != nil {
		syscall.Munmap(mem)
		t.Skip("mprotect:", err)
	}
	x := unsafe.Slice((*float32)(unsafe.Pointer(&mem[size-4*n])), n)
	return x, func() { syscall.Munmap(mem) }
}

// TestPageEnd runs every kernel on slices that end at an inaccessible
// page, for every length of a tail: no kernel reads or writes past the
// end of a slice.
func TestPageEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, im := range impls() {
		for n := 0; n <= 40; n++ {
			var s [4][]float32
			for i := range s {
				x, free := pageEnd(t, n)
				defer free()
				copy(x, fill(rng, "normal", n, 0))
				s[i] = x
			}
			// v ≥ 0, as Adam keeps it.
			for i := range s[3] {
				s[3][i] *= s[3][i]
			}
			if im.adam != nil {
				im.adam(s[0], s[1], s[2], s[3], 1, 0.5, 0.5, 0.999, 0.001, 1e-3, 1, 1e-8)
			}
			if im.scale != nil {
				im.scale(s[0], s[1], 2)
			}
			if im.moments != nil {
				im.moments(s[2], s[3], s[1], 0.5, 0.5, 0.999, 0.001)
			}
			if im.apply != nil {
				im.apply(s[0], s[2], s[3], 1e-3, 1, 1e-8)
			}
			if im.leaky != nil {
				im.leaky(s[0], s[1], 0.2)
			}
			if im.leakyBack != nil {
				im.leakyBack(s[0], s[1], s[2], 0.2)
			}
			if im.count != nil {
				im.count(s[0], 0)
			}
			if im.tanh != nil {
				im.tanh(s[0], s[1])
			}
		}
	}
}
