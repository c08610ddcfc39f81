//go:build linux

package vec

import (
	"math/rand/v2"
	"testing"
)

// TestNormPageEnd runs the norm kernels on slices that end at an
// inaccessible page, for every length of a tail: they read and write
// nothing past the end of a slice.
func TestNormPageEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, im := range normxImpls() {
		for n := 0; n <= 40; n++ {
			var s [3][]float32
			for i := range s {
				x, free := pageEnd(t, n)
				defer free()
				copy(x, fill(rng, "normal", n, 0))
				s[i] = x
			}
			im.affine(s[0], s[1], 0.5, 2, 1.5, -1)
			im.backX(s[0], s[1], s[2], 0.5, 2, 49, 0.25, -0.5, 0.01)
		}
	}
}
