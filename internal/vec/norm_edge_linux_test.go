//go:build linux

package vec

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestNormPageEnd runs the norm kernels on slices that end at an
// inaccessible page, for every length of a tail: they read and write
// nothing past the end of a slice.
func TestNormPageEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, im := range normImpls() {
		for n := 0; n <= 40; n++ {
			var s [2][]float32
			for i := range s {
				x, free := pageEnd(t, n)
				defer free()
				copy(x, fill(rng, "normal", n, 0))
				s[i] = x
			}
			h, free := pageEnd(t, 2*n)
			defer free()
			xh := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(h))), n)
			im.forward(s[0], xh, s[1], 0.5, 2, 1.5, -1)
			im.backX(s[0], s[1], xh, 49, 0.25, -0.5, 0.01)
		}
	}
}
