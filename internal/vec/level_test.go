package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// levelData is n values of every kind: normals of every size, float32
// subnormals, zeros of both signs, the largest finite values,
// infinities and NaNs.
func levelData(rng *rand.Rand, n int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.Float32frombits(1), math.Float32frombits(0x807fffff), math.MaxFloat32, -math.MaxFloat32, 0x1p-126, 9, -9, 0x1p-13}
	s := make([]float32, n)
	for i := range s {
		switch rng.IntN(4) {
		case 0:
			s[i] = special[rng.IntN(len(special))]
		case 1:
			s[i] = math.Float32frombits(rng.Uint32())
		default:
			s[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
		}
	}
	return s
}

// TestLevelsAgree runs the package's functions at every kernel level this
// machine runs (up to quant.CPUEnv's cap) and checks each against the Go
// kernels bit for bit, at lengths around the vector widths, on values of
// every kind.
func TestLevelsAgree(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 3))
	same := func(a, b []float32) int {
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				return i
			}
		}
		return -1
	}
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 31, 33, 100, 1001} {
			x, y := levelData(rng, n), levelData(rng, n)
			m, v := levelData(rng, n), levelData(rng, n)
			for i := range v {
				v[i] = float32(math.Abs(float64(v[i]))) // a second moment
			}
			type out struct{ a, b, c []float32 }
			run := func(k impl, name string) out {
				p, mm, vv := append([]float32(nil), x...), append([]float32(nil), m...), append([]float32(nil), v...)
				d := make([]float32, n)
				switch name {
				case "adam":
					k.adam(p, y, mm, vv, 0.5, 0.5, 0.5, 0.999, 0.001, 2e-4, 0.7, 1e-8)
				case "scale":
					k.scale(d, x, 1.5)
				case "moments":
					k.moments(mm, vv, y, 0.5, 0.5, 0.999, 0.001)
				case "apply":
					k.apply(p, mm, vv, 2e-4, 0.7, 1e-8)
				case "leaky":
					k.leaky(d, x, 0.2)
				case "leakyBack":
					k.leakyBack(d, y, x, 0.2)
				case "count":
					ge, inf := k.count(x, 0x7f000000)
					d = []float32{float32(ge), float32(inf)}
				case "tanh":
					k.tanh(d, x)
				}
				return out{p, d, append(mm, vv...)}
			}
			for _, name := range []string{"adam", "scale", "moments", "apply", "leaky", "leakyBack", "count", "tanh"} {
				got, want := run(dispatchImpl, name), run(goImpl, name)
				for j, pair := range [][2][]float32{{got.a, want.a}, {got.b, want.b}, {got.c, want.c}} {
					if i := same(pair[0], pair[1]); i >= 0 {
						t.Fatalf("%s at %v, n=%d: output %d [%d] = %g, Go %g", name, l, n, j, i, pair[0][i], pair[1][i])
					}
				}
			}
		}
	}
}
