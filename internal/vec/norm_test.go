package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The references, from the definitions: each float64 operation on its
// own line, so that none can fuse with the next.

func refNormForward(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64) {
	for i := range y {
		h := float64(x[i])
		h -= mean
		h *= inv
		xhat[i] = h
		o := h * gamma
		o += beta
		y[i] = float32(o)
	}
}

func refNormBackX(dx, dy []float32, xhat []float64, m, s, sx, f float64) {
	for i := range dx {
		a := float64(dy[i])
		a *= m
		a -= s
		b := xhat[i]
		b *= sx
		a -= b
		a *= f
		dx[i] = float32(a)
	}
}

// specials64 are float64 values of every kind beyond ordinary numbers, for
// the kernels' float64 operands: zeros, subnormals (float64's, and
// float32's that float64 holds as normals), extremes, infinities and NaNs
// (quiet, negative, with payloads, signalling).
var specials64 = []uint64{
	0, 1 << 63, // ±0
	1, 1<<63 | 1, 0x000fffffffffffff, // subnormals
	0x3690000000000000, 0xb6a0000000000000, // float32 subnormals
	0x3ff0000000000000, 0xbff0000000000000, // ±1
	0x7fefffffffffffff, 0xffefffffffffffff, // ±MaxFloat64
	0x47efffffe0000000, 0x47effffff0000000, // MaxFloat32 and the tie above it
	0x7ff0000000000000, 0xfff0000000000000, // ±Inf
	0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000000012345, 0x7ff0000000000001, 0xfff4000000054321, // NaNs
}

// fill64 is fill for float64: n values of one kind after pad spare ones,
// then guard values in the capacity.
func fill64(rng *rand.Rand, kind string, n, pad int) []float64 {
	x := make([]float64, pad+n+8)
	for i := range x[pad+n:] {
		x[pad+n+i] = math.Float64frombits(guard64)
	}
	x = x[:pad+n]
	for i := range x {
		switch {
		case kind == "bits":
			x[i] = math.Float64frombits(rng.Uint64())
		case kind == "special" && rng.IntN(4) == 0:
			x[i] = math.Float64frombits(specials64[rng.IntN(len(specials64))])
		default:
			x[i] = rng.NormFloat64()
		}
	}
	return x[pad:]
}

// guard64 is fill64's guard.
const guard64 = 0x7ff0badbadbadbad

func checkGuard64(t *testing.T, xs ...[]float64) {
	t.Helper()
	for _, x := range xs {
		for i, v := range x[len(x):cap(x)] {
			if math.Float64bits(v) != guard64 {
				t.Fatalf("wrote %#x past the end of %d values, at +%d", math.Float64bits(v), len(x), i)
			}
		}
	}
}

// normParams returns the four float64 parameters of a call: ordinary
// ones, or for the special kinds sometimes special ones.
func normParams(rng *rand.Rand, kind string) [4]float64 {
	var p [4]float64
	for i := range p {
		p[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
		if kind != "normal" && rng.IntN(3) == 0 {
			p[i] = math.Float64frombits(specials64[rng.IntN(len(specials64))])
		}
	}
	return p
}

func sameBits64(got, want []float64) (int, bool) {
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i, false
		}
	}
	return 0, true
}

// TestNormSpecials tries every pair of special values as the element
// operands and as each parameter, so that every pairing of two NaNs in
// one operation occurs: the kernels return the same NaN as Go. The
// backward pass recomputes x̂ from x with the forward's mean and inv, each
// special in turn, against the reference fed the reference's x̂.
func TestNormSpecials(t *testing.T) {
	var x32 []float32
	var x64 []float64
	for _, a := range specials {
		x32 = append(x32, math.Float32frombits(a))
	}
	for _, a := range specials64 {
		x64 = append(x64, math.Float64frombits(a))
	}
	n := len(x32)
	for _, im := range normxImpls() {
		for _, p := range x64 {
			for k := range 4 {
				var ps [4]float64
				for i := range ps {
					ps[i] = 0.75
				}
				ps[k] = p
				y, wy := make([]float32, n), make([]float32, n)
				wxh := make([]float64, n)
				refNormForward(wy, wxh, x32, ps[0], ps[1], ps[2], ps[3])
				im.affine(y, x32, ps[0], ps[1], ps[2], ps[3])
				name := fmt.Sprintf("%s %v", im.name, ps)
				if i, ok := sameBits(y, wy); !ok {
					t.Fatalf("%s forward: y[%d] = %#x, want %#x", name, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
				}
				refNormBackX(wy, x32, wxh, ps[0], ps[1], ps[2], ps[3])
				im.backX(y, x32, x32, ps[0], ps[1], ps[0], ps[1], ps[2], ps[3])
				if i, ok := sameBits(y, wy); !ok {
					t.Fatalf("%s back: dx[%d] = %#x, want %#x", name, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
				}
			}
		}
	}
}

// BenchmarkNorm times the norm kernels of each implementation on one
// group of batch norm at dcgan64's shapes (64·49 and 64·196 values) and
// at a million, by values a second.
func BenchmarkNorm(b *testing.B) {
	for _, n := range []int{49, 196, 64 * 49, 64 * 196, 1 << 20} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, y := fill(rng, "normal", n, 0), make([]float32, n)
		dy := fill(rng, "normal", n, 0)
		for _, im := range normxImpls() {
			b.Run(fmt.Sprintf("forward/%d/%s", n, im.name), func(b *testing.B) {
				for b.Loop() {
					im.affine(y, x, 0.1, 1.2, 0.9, 0.05)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
			})
			b.Run(fmt.Sprintf("backX/%d/%s", n, im.name), func(b *testing.B) {
				for b.Loop() {
					im.backX(y, dy, x, 0.1, 1.2, float64(n), 0.3, -0.2, 1e-4)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
			})
		}
	}
}
