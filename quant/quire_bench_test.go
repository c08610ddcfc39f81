package quant_test

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

var quireBenchFormats = []struct {
	name      string
	n, es, sc int
}{
	{"posit(8,1)", 8, 1, 0},
	{"posit(8,2)", 8, 2, 0},
	{"posit(16,1)", 16, 1, 0},
	{"posit(16,2)", 16, 2, 0}, // word-by-word path
}

// gaussCodes returns n codes of N(0, sigma²) samples, like the weights and
// activations of a layer.
func gaussCodes(p quant.Posit, n int, sigma float64, rng *rand.Rand) []uint32 {
	cs := make([]uint32, n)
	for i := range cs {
		cs[i] = p.Encode64(rng.NormFloat64() * sigma)
	}
	return cs
}

const quireBenchLen = 1024 // a typical inner dimension

// BenchmarkQuireDot measures Posit.Dot on codes: ns/op is per dot product
// of quireBenchLen terms; MAC/s counts multiply-accumulates.
func BenchmarkQuireDot(b *testing.B) {
	for _, f := range quireBenchFormats {
		p := scaledPosit(b, f.n, f.es, f.sc)
		rng := rand.New(rand.NewPCG(1, 2))
		x, y := gaussCodes(p, quireBenchLen, 0.1, rng), gaussCodes(p, quireBenchLen, 1, rng)
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink uint32
			for b.Loop() {
				sink += p.Dot(x, y)
			}
			reportMACs(b, quireBenchLen*b.N)
			_ = sink
		})
	}
}

// BenchmarkQuireDotFloat32 measures Posit.DotFloat32 on values of the
// format held as float32.
func BenchmarkQuireDotFloat32(b *testing.B) {
	for _, f := range quireBenchFormats {
		p := scaledPosit(b, f.n, f.es, f.sc)
		rng := rand.New(rand.NewPCG(1, 2))
		x, y := make([]float32, quireBenchLen), make([]float32, quireBenchLen)
		for i := range x {
			x[i] = p.Round(float32(rng.NormFloat64() * 0.1))
			y[i] = p.Round(float32(rng.NormFloat64()))
		}
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink float32
			for b.Loop() {
				sink += p.DotFloat32(x, y)
			}
			reportMACs(b, quireBenchLen*b.N)
			_ = sink
		})
	}
}

// BenchmarkQuireAddProduct measures one product at a time into a quire.
func BenchmarkQuireAddProduct(b *testing.B) {
	for _, f := range quireBenchFormats {
		p := scaledPosit(b, f.n, f.es, f.sc)
		rng := rand.New(rand.NewPCG(1, 2))
		x, y := gaussCodes(p, quireBenchLen, 0.1, rng), gaussCodes(p, quireBenchLen, 1, rng)
		q := p.NewQuire()
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				q.Reset()
				for i := range x {
					q.AddProduct(x[i], y[i])
				}
			}
			reportMACs(b, quireBenchLen*b.N)
		})
	}
}

// BenchmarkPositArith measures the rounded arithmetic: ns/op per
// operation.
func BenchmarkPositArith(b *testing.B) {
	p := scaledPosit(b, 16, 1, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := gaussCodes(p, quireBenchLen, 1, rng), gaussCodes(p, quireBenchLen, 1, rng)
	for _, op := range arithOps {
		b.Run(op.name, func(b *testing.B) {
			var sink uint32
			i := 0
			for b.Loop() {
				sink += op.f(p, x[i], y[i])
				i = (i + 1) & (quireBenchLen - 1)
			}
			_ = sink
		})
	}
}

// reportMACs reports multiply-accumulates per second and ns per MAC.
func reportMACs(b *testing.B, macs int) {
	b.ReportMetric(float64(macs)/b.Elapsed().Seconds(), "MAC/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(macs), "ns/MAC")
}
