package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// TestLeakyReLUSign checks LeakyReLUSign and LeakyReLUBackSign at every
// level this machine runs against their definitions, bit for bit (a
// NaN's payload too: one NaN operand at most): dst = x if x > 0 else
// alpha·x, bit i of pos x[i] > 0, and dy or alpha·dy by that bit; on
// every length to 70 and some to 1000 (each tail of a byte), values of
// every kind (NaNs, infinities, signed zeros, subnormals) and slopes 0.2,
// 0 (ReLU), 1 and -0.5. The bytes of pos past (n+7)/8 and the values
// past dst keep theirs.
func TestLeakyReLUSign(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 8))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, n := range lengths() {
			for _, alpha := range []float32{0.2, 0, 1, -0.5} {
				x, dy := fill(rng, "special", n, 0), fill(rng, "special", n, 0)
				nb := (n + 7) / 8
				pos := make([]uint8, nb+3)
				for i := range pos {
					pos[i] = uint8(rng.Uint32())
				}
				guard := append([]uint8(nil), pos[nb:]...)
				dst := fill(rng, "bits", n, 0)
				LeakyReLUSign(dst, pos, x, alpha)
				for i, v := range x {
					want := alpha * v
					if v > 0 {
						want = v
					}
					if math.Float32bits(dst[i]) != math.Float32bits(want) {
						t.Fatalf("%v n %d alpha %v: dst[%d] = %#x, want %#x (x %v)", l, n, alpha, i, math.Float32bits(dst[i]), math.Float32bits(want), v)
					}
					if got := pos[i/8]>>(i%8)&1 == 1; got != (v > 0) {
						t.Fatalf("%v n %d: bit %d = %v for x = %v", l, n, i, got, v)
					}
				}
				if n%8 != 0 && pos[nb-1]>>(n%8) != 0 {
					t.Fatalf("%v n %d: bits past the end set: %#x", l, n, pos[nb-1])
				}
				for i, g := range guard {
					if pos[nb+i] != g {
						t.Fatalf("%v n %d: pos[%d] written", l, n, nb+i)
					}
				}
				checkGuard(t, dst)

				dx := fill(rng, "bits", n, 0)
				LeakyReLUBackSign(dx, dy, pos, alpha)
				for i, d := range dy {
					want := alpha * d
					if x[i] > 0 {
						want = d
					}
					if math.Float32bits(dx[i]) != math.Float32bits(want) {
						t.Fatalf("%v n %d alpha %v: dx[%d] = %#x, want %#x", l, n, alpha, i, math.Float32bits(dx[i]), math.Float32bits(want))
					}
				}
				checkGuard(t, dx)
			}
		}
	}
}
