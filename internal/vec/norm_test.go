package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// normImpl is one set of norm kernels.
type normImpl struct {
	name    string
	forward func(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64)
	backX   func(dx, dy []float32, xhat []float64, m, s, sx, f float64)
}

var (
	normGoImpl       = normImpl{"go", normForwardGo, normBackXGo}
	normDispatchImpl = normImpl{"dispatch", normForward, normBackX}
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

func TestNormForward(t *testing.T) {
	for _, im := range normImpls() {
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				p := normParams(rng, kind)
				x := fill(rng, kind, n, off)
				y, xh := fill(rng, kind, n, (off+5)%16), fill64(rng, kind, n, (off+3)%8)
				wy, wxh := clone(y), append([]float64(nil), xh...)
				refNormForward(wy, wxh, x, p[0], p[1], p[2], p[3])
				im.forward(y, xh, x, p[0], p[1], p[2], p[3])
				checkGuard(t, y)
				checkGuard64(t, xh)
				if i, ok := sameBits64(xh, wxh); !ok {
					t.Fatalf("n %d off %d %s %v: xhat[%d] = %#x, want %#x (x %#x)", n, off, kind, p, i,
						math.Float64bits(xh[i]), math.Float64bits(wxh[i]), math.Float32bits(x[i]))
				}
				if i, ok := sameBits(y, wy); !ok {
					t.Fatalf("n %d off %d %s %v: y[%d] = %#x, want %#x (x %#x)", n, off, kind, p, i,
						math.Float32bits(y[i]), math.Float32bits(wy[i]), math.Float32bits(x[i]))
				}
			})
		})
	}
}

func TestNormBackX(t *testing.T) {
	for _, im := range normImpls() {
		t.Run(im.name, func(t *testing.T) {
			forCases(t, func(t *testing.T, rng *rand.Rand, n, off int, kind string) {
				p := normParams(rng, kind)
				dy, xh := fill(rng, kind, n, off), fill64(rng, kind, n, (off+3)%8)
				dx := fill(rng, kind, n, (off+9)%16)
				want := clone(dx)
				refNormBackX(want, dy, xh, p[0], p[1], p[2], p[3])
				im.backX(dx, dy, xh, p[0], p[1], p[2], p[3])
				checkGuard(t, dx)
				if i, ok := sameBits(dx, want); !ok {
					t.Fatalf("n %d off %d %s %v: dx[%d] = %#x, want %#x (dy %#x xhat %#x)", n, off, kind, p, i,
						math.Float32bits(dx[i]), math.Float32bits(want[i]), math.Float32bits(dy[i]), math.Float64bits(xh[i]))
				}
			})
		})
	}
}

// TestNormSpecials tries every pair of special values as the element
// operands and as each parameter, so that every pairing of two NaNs in
// one operation occurs: the kernels return the same NaN as Go.
func TestNormSpecials(t *testing.T) {
	var x32 []float32
	var x64 []float64
	for _, a := range specials {
		x32 = append(x32, math.Float32frombits(a))
	}
	for _, a := range specials64 {
		x64 = append(x64, math.Float64frombits(a))
	}
	for _, im := range normImpls() {
		for _, p := range x64 {
			for k := range 4 {
				var ps [4]float64
				for i := range ps {
					ps[i] = 0.75
				}
				ps[k] = p
				for _, e := range x64 {
					n := len(x32)
					xh := make([]float64, n)
					for i := range xh {
						xh[i] = e
					}
					y, wy := make([]float32, n), make([]float32, n)
					gxh, wxh := make([]float64, n), make([]float64, n)
					refNormForward(wy, wxh, x32, ps[0], ps[1], ps[2], ps[3])
					im.forward(y, gxh, x32, ps[0], ps[1], ps[2], ps[3])
					name := fmt.Sprintf("%s %v", im.name, ps)
					if i, ok := sameBits(y, wy); !ok {
						t.Fatalf("%s forward: y[%d] = %#x, want %#x", name, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
					}
					if i, ok := sameBits64(gxh, wxh); !ok {
						t.Fatalf("%s forward: xhat[%d] = %#x, want %#x", name, i, math.Float64bits(gxh[i]), math.Float64bits(wxh[i]))
					}
					refNormBackX(wy, x32, xh, ps[0], ps[1], ps[2], ps[3])
					im.backX(y, x32, xh, ps[0], ps[1], ps[2], ps[3])
					if i, ok := sameBits(y, wy); !ok {
						t.Fatalf("%s back, xhat %#x: dx[%d] = %#x, want %#x", name, math.Float64bits(e), i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
					}
				}
			}
		}
	}
}

// TestNormLevels runs the exported norm kernels at every kernel level
// this machine runs against the Go ones, bit for bit.
func TestNormLevels(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 4))
	for _, l := range quant.LevelsUpTo(levelTop) {
		useLevel(l)
		for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 49, 196, 1001} {
			x, dy := levelData(rng, n), levelData(rng, n)
			xh := fill64(rng, "special", n, 0)
			p := normParams(rng, "special")
			y, wy := make([]float32, n), make([]float32, n)
			gxh, wxh := make([]float64, n), make([]float64, n)
			NormForward(y, gxh, x, p[0], p[1], p[2], p[3])
			normForwardGo(wy, wxh, x, p[0], p[1], p[2], p[3])
			if i, ok := sameBits(y, wy); !ok {
				t.Fatalf("NormForward at %v, n=%d: y[%d] = %#x, Go %#x", l, n, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
			}
			if i, ok := sameBits64(gxh, wxh); !ok {
				t.Fatalf("NormForward at %v, n=%d: xhat[%d] = %#x, Go %#x", l, n, i, math.Float64bits(gxh[i]), math.Float64bits(wxh[i]))
			}
			NormBackX(y, dy, xh, p[0], p[1], p[2], p[3])
			normBackXGo(wy, dy, xh, p[0], p[1], p[2], p[3])
			if i, ok := sameBits(y, wy); !ok {
				t.Fatalf("NormBackX at %v, n=%d: dx[%d] = %#x, Go %#x", l, n, i, math.Float32bits(y[i]), math.Float32bits(wy[i]))
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
		xh := fill64(rng, "normal", n, 0)
		for _, im := range normImpls() {
			b.Run(fmt.Sprintf("forward/%d/%s", n, im.name), func(b *testing.B) {
				for b.Loop() {
					im.forward(y, xh, x, 0.1, 1.2, 0.9, 0.05)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
			})
			b.Run(fmt.Sprintf("backX/%d/%s", n, im.name), func(b *testing.B) {
				for b.Loop() {
					im.backX(y, x, xh, float64(n), 0.3, -0.2, 1e-4)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
			})
		}
	}
}
