package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// refPad is PadImages from its definition: pixel (y, x) of each padded
// plane is src's (y-PH, x-PW) inside the image and zero around it.
func refPad(dst, src []float32, n int, g Geom) {
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	for k := range n * g.C {
		for y := range hp {
			for x := range wp {
				var v float32
				if iy, ix := y-g.PH, x-g.PW; iy >= 0 && iy < g.H && ix >= 0 && ix < g.W {
					v = src[(k*g.H+iy)*g.W+ix]
				}
				dst[(k*hp+y)*wp+x] = v
			}
		}
	}
}

// TestPadLevels checks PadImages at every level this machine runs
// against refPad, bit for bit (NaN payloads, quiet or signalling, moved
// as they are): image widths 1 to 40 (every tail of the kernel's eight
// pixel chunks), padding 0 to 9 on each axis (more than a chunk of
// zeros), and nothing written past the padded images.
func TestPadLevels(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 71))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for w := 1; w <= 40; w++ {
			for _, p := range [][2]int{{1, 1}, {0, 1}, {1, 0}, {2, 3}, {0, 0}, {9, 9}, {3, 8}} {
				const n, c = 2, 3
				h := 1 + rng.IntN(5)
				g := Geom{C: c, H: h, W: w, PH: p[0], PW: p[1]}
				x := col2imData(rng, n*c*h*w)
				size := n * c * (h + 2*p[0]) * (w + 2*p[1])
				got := col2imData(rng, size+9)
				guard := append([]float32(nil), got[size:]...)
				want := make([]float32, size)
				refPad(want, x, n, g)
				PadImages(got, x, n, g)
				name := fmt.Sprintf("%v %dx%d pad %v", l, h, w, p)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
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
