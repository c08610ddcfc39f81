package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// normxImpl is one set of the kernels that recompute x̂.
type normxImpl struct {
	name   string
	affine func(y, x []float32, mean, inv, gamma, beta float64)
	backX  func(dx, dy, x []float32, mean, inv, m, s, sx, f float64)
}

func normxImpls() []normxImpl {
	is := []normxImpl{{"go", normAffineGo, normBackXFromGo}, {"dispatch", normAffine, normBackXFrom}}
	return append(is, normxAsmImpls()...)
}

// TestNormRecompute checks NormAffine and NormBackXFrom against the
// references (from the definitions: refNormForward keeps x̂ and
// refNormBackX reads it): recomputing x̂ must give the bits of keeping it.
func TestNormRecompute(t *testing.T) {
	for _, im := range normxImpls() {
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				p, q := normParams(rng, kind), normParams(rng, kind)
				x, dy := fill(rng, kind, n, off), fill(rng, kind, n, (off+7)%16)
				y := fill(rng, kind, n, (off+5)%16)
				wy, wxh := clone(y), make([]float64, n)
				refNormForward(wy, wxh, x, p[0], p[1], p[2], p[3])
				im.affine(y, x, p[0], p[1], p[2], p[3])
				checkGuard(t, y)
				if i, ok := sameBits(y, wy); !ok {
					t.Fatalf("n %d off %d %s %v: y[%d] = %#x, want %#x (x %#x)", n, off, kind, p, i,
						math.Float32bits(y[i]), math.Float32bits(wy[i]), math.Float32bits(x[i]))
				}
				dx := fill(rng, kind, n, (off+3)%16)
				wdx := clone(dx)
				refNormBackX(wdx, dy, wxh, q[0], q[1], q[2], q[3])
				im.backX(dx, dy, x, p[0], p[1], q[0], q[1], q[2], q[3])
				checkGuard(t, dx)
				if i, ok := sameBits(dx, wdx); !ok {
					t.Fatalf("n %d off %d %s %v %v: dx[%d] = %#x, want %#x (dy %#x x %#x)", n, off, kind, p, q, i,
						math.Float32bits(dx[i]), math.Float32bits(wdx[i]), math.Float32bits(dy[i]), math.Float32bits(x[i]))
				}
			})
		})
	}
}

// TestNormRecomputeLevels runs the exported kernels at every kernel
// level this machine runs against the Go ones, bit for bit.
func TestNormRecomputeLevels(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 5))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, n := range []int{0, 1, 3, 7, 8, 9, 17, 49, 196, 1001} {
			x, dy := levelData(rng, n), levelData(rng, n)
			p, q := normParams(rng, "special"), normParams(rng, "special")
			y, wy := make([]float32, n), make([]float32, n)
			NormAffine(y, x, p[0], p[1], p[2], p[3])
			normAffineGo(wy, x, p[0], p[1], p[2], p[3])
			if i, ok := sameBits(y, wy); !ok {
				t.Fatalf("NormAffine at %v, n=%d: y[%d] = %#x, Go %#x", l, n, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
			}
			NormBackXFrom(y, dy, x, p[0], p[1], q[0], q[1], q[2], q[3])
			normBackXFromGo(wy, dy, x, p[0], p[1], q[0], q[1], q[2], q[3])
			if i, ok := sameBits(y, wy); !ok {
				t.Fatalf("NormBackXFrom at %v, n=%d: dx[%d] = %#x, Go %#x", l, n, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
			}
		}
	}
}

// refNormSumDot4 is NormSumDot4 from the definition, one channel at a
// time.
func refNormSumDot4(dy, x *[4][]float32, mu, inv, s, sx *[4]float64) {
	for k := range 4 {
		for i := range dy[0] {
			v := float64(dy[k][i])
			h := float64(x[k][i])
			h -= mu[k]
			h *= inv[k]
			s[k] += v
			v *= h
			sx[k] += v
		}
	}
}

func TestNormSumDot4(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 6))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, kind := range []string{"normal", "special"} {
			for _, n := range []int{0, 1, 2, 5, 8, 49, 196, 1001} {
				var dy, x [4][]float32
				var mu, inv, s, sx [4]float64
				for k := range 4 {
					dy[k], x[k] = fill(rng, kind, n, k), fill(rng, kind, n, 3*k)
					p := normParams(rng, kind)
					mu[k], inv[k], s[k], sx[k] = p[0], p[1], p[2], p[3]
				}
				ws, wsx := s, sx
				refNormSumDot4(&dy, &x, &mu, &inv, &ws, &wsx)
				NormSumDot4(&dy, &x, &mu, &inv, &s, &sx)
				for k := range 4 {
					if !sameSum(s[k], ws[k]) || !sameSum(sx[k], wsx[k]) {
						t.Fatalf("at %v, %s n=%d: channel %d: sums %#x %#x, want %#x %#x", l, kind, n, k,
							math.Float64bits(s[k]), math.Float64bits(sx[k]), math.Float64bits(ws[k]), math.Float64bits(wsx[k]))
					}
				}
			}
		}
	}
}

// sameSum reports whether a and b have the same bits, or are both NaN:
// which NaN a product of two NaNs returns is the first operand's on x86,
// and the Go compiler may swap a product's operands (it commutes), so the
// portable loop's payload is not the source's either.
func sameSum(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}
