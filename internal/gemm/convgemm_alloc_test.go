//go:build !openblas

package gemm

import (
	"math/rand/v2"
	"testing"
)

// ConvForward allocates nothing once its workspace has grown: the panels'
// kernels are called through closures that stay on the stack.
func TestConvForwardAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	g, err := ConvGeom(16, 40, 64, 3, 3, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	const m = 13 // not a multiple of any tile's rows: the last rows go through a tile
	x := randSlice[float32](rng, g.C*g.H*g.W)
	w := randSlice[float32](rng, m*g.Rows())
	bias := randSlice[float32](rng, m)
	y := make([]float32, m*g.Cols())
	for _, ki := range kernels[float32]() {
		old := useKernel(ki)
		ConvForward(y, g.Cols(), w, m, x, g, bias)
		if n := testing.AllocsPerRun(5, func() { ConvForward(y, g.Cols(), w, m, x, g, bias) }); n != 0 {
			t.Errorf("%s: %v allocations a call", ki.name, n)
		}
		useKernel(old)
	}
}
