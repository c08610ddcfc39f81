//go:build linux

package vec

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// TestLeakyReLUSignPageEnd runs LeakyReLUSign and LeakyReLUBackSign at
// every level on slices that end at an inaccessible page, for every tail
// length: neither touches a value past the end.
func TestLeakyReLUSignPageEnd(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(5, 8))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for n := 0; n <= 40; n++ {
			var s [3][]float32
			for i := range s {
				x, free := pageEnd(t, n)
				defer free()
				copy(x, fill(rng, "special", n, 0))
				s[i] = x
			}
			pos := make([]uint8, (n+7)/8)
			LeakyReLUSign(s[0], pos, s[1], 0.2)
			LeakyReLUBackSign(s[2], s[1], pos, 0.2)
		}
	}
}
