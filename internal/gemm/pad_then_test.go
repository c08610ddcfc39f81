package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/positgan/positgan/quant"
)

// addOne adds 1 to what it finishes and counts the values.
type addOne struct{ n atomic.Int64 }

func (a *addOne) Finish(d []float32) {
	a.n.Add(int64(len(d)))
	for i := range d {
		d[i]++
	}
}

// TestPadImagesThen checks PadImagesThen at every level this machine
// runs against refPad followed by the finisher on every padded value, by
// its definition, bit for bit: each value finished once, and nothing
// written past the padded images. Large batches take several runs and,
// with more than one core, several goroutines.
func TestPadImagesThen(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 74))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, w := range []int{1, 7, 8, 9, 17, 32} {
			for _, p := range [][2]int{{1, 1}, {0, 1}, {1, 0}, {2, 3}, {0, 0}} {
				n, c := 2, 3
				h := 1 + rng.IntN(5)
				if w == 32 {
					n, c, h = 5, 64, 30 // 320 planes, 2.5 MB padded
				}
				g := Geom{C: c, H: h, W: w, PH: p[0], PW: p[1]}
				hp, wp := h+2*p[0], w+2*p[1]
				x := col2imData(rng, n*c*h*w)
				size := n * c * hp * wp
				got := col2imData(rng, size+9)
				guard := append([]float32(nil), got[size:]...)
				want := make([]float32, size)
				refPad(want, x, n, g)
				for i := range want {
					want[i]++
				}
				var f addOne
				PadImagesThen(got, x, n, g, &f)
				name := fmt.Sprintf("%v %dx%d pad %v", l, h, w, p)
				if f.n.Load() != int64(size) {
					t.Fatalf("%s: finished %d values, want %d", name, f.n.Load(), size)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s: [%d] = %#x, want %#x", name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
				for i := range guard {
					if math.Float32bits(got[size+i]) != math.Float32bits(guard[i]) {
						t.Fatalf("%s: wrote past the images at %d", name, i)
					}
				}
			}
		}
	}
}
