package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// k4s2p1 returns the geometry of a 4×4 kernel with stride 2 and padding 1
// on a c×2oh×2ow image (isK4S2P1).
func k4s2p1(c, oh, ow int) Geom {
	return Geom{C: c, H: 2 * oh, W: 2 * ow, KH: 4, KW: 4, SH: 2, SW: 2, PH: 1, PW: 1, OH: oh, OW: ow}
}

// col2imData is levelData with NaNs of random payloads and signs, quiet
// and signalling, in one value of sixteen.
func col2imData(rng *rand.Rand, n int) []float32 {
	s := levelData(rng, n, true)
	for i := range s {
		if rng.IntN(16) == 0 {
			s[i] = math.Float32frombits(0x7f800000 | rng.Uint32()&0x807fffff | 1)
		}
	}
	return s
}

// TestCol2im42 checks Col2imBatch on 4×4 stride-2 geometries (the ones
// col2im42Fast takes where the level has it) at every level this machine
// runs against refCol2im of each image, bit for bit (a NaN as a NaN:
// where two meet, which payload a sum keeps depends on which operand Go's
// compiler puts first, and the generic level's differs from refCol2im's
// already): every size of output grid to 17 on each axis (all tail
// lengths of the kernel's 8-column chunks), values of every kind, and
// nothing written past the images.
func TestCol2im42(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 42))
	var sizes [][2]int
	for oh := 1; oh <= 17; oh++ {
		for ow := 1; ow <= 17; ow++ {
			if oh <= 3 || ow <= 3 || oh == ow || rng.IntN(8) == 0 {
				sizes = append(sizes, [2]int{oh, ow})
			}
		}
	}
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, sz := range sizes {
			const c, n = 2, 3
			g := k4s2p1(c, sz[0], sz[1])
			if !isK4S2P1(g) {
				t.Fatalf("%+v: not isK4S2P1", g)
			}
			p, img := g.Cols(), g.C*g.H*g.W
			ld := n * p
			col := col2imData(rng, g.Rows()*ld)
			want := make([]float32, n*img)
			for b := range n {
				refCol2im(want[b*img:(b+1)*img], col[b*p:], ld, g)
			}
			got := col2imData(rng, n*img+9) // junk, and a guard after the images
			guard := append([]float32(nil), got[n*img:]...)
			Col2imBatch(got, col, n, g)
			name := fmt.Sprintf("%v %dx%d", l, sz[0], sz[1])
			for i, w := range want {
				if !sameBits(got[i], w) {
					t.Fatalf("%s: pixel %d = %v (%#x), want %v (%#x)", name, i, got[i], math.Float32bits(got[i]), w, math.Float32bits(w))
				}
			}
			for i, w := range guard {
				if math.Float32bits(got[n*img+i]) != math.Float32bits(w) {
					t.Fatalf("%s: wrote past the images at %d", name, i)
				}
			}
		}
	}
}

// TestCol2imWholeLevels checks Col2imBatch on geometries whose kernel
// covers the image (a transpose of the column matrix, which the level's
// kernel may do eight rows by eight images at a time) at every level
// against refCol2im of each image, bit for bit, NaN payloads included:
// each pixel is zero plus its one term. Batches of 1 to 65 images and
// images of 1 to 75 pixels cover every remainder of the eight-wide
// blocks; a guard after the images must be left alone.
func TestCol2imWholeLevels(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 43))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, n := range []int{1, 7, 8, 9, 16, 23, 64, 65} {
			for _, chw := range [][3]int{{1, 1, 1}, {3, 2, 2}, {2, 3, 3}, {1, 5, 5}, {3, 5, 5}, {5, 7, 7}, {2, 4, 3}} {
				c, h, w := chw[0], chw[1], chw[2]
				g := Geom{C: c, H: h, W: w, KH: h, KW: w, SH: 1, SW: 1, OH: 1, OW: 1}
				if !wholeImage(g) {
					t.Fatalf("%+v: not wholeImage", g)
				}
				img := c * h * w
				col := col2imData(rng, g.Rows()*n)
				want := make([]float32, n*img)
				for b := range n {
					refCol2im(want[b*img:(b+1)*img], col[b:], n, g)
				}
				got := col2imData(rng, n*img+9)
				guard := append([]float32(nil), got[n*img:]...)
				Col2imBatch(got, col, n, g)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v n %d %v: pixel %d = %#x, want %#x", l, n, chw, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
				for i := range guard {
					if math.Float32bits(got[n*img+i]) != math.Float32bits(guard[i]) {
						t.Fatalf("%v n %d %v: wrote past the images at %d", l, n, chw, i)
					}
				}
			}
		}
	}
}
