package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Quantization benchmarks over 1M float32s, reporting elements per second.
//
// BenchmarkQuantize uses normal inputs (mean 0, σ 1, seed 1): the shape of
// normalised activations and weights. Nearly all of them fall where the
// posit has fraction bits, which the kernels round with bit operations.
//
// BenchmarkQuantizeWide uses magnitudes log-uniform over [2^-40, 2^40]
// with random signs (seed 2), so that many inputs fall near minpos and
// maxpos, beyond them, or where the regime has eaten the fraction: it makes
// the cost of the exact slow paths visible.
//
// Run with: go test ./quant -run '^$' -bench Quantize -benchtime 20x -cpu 1

const benchLen = 1 << 20

var benchFormats = []string{
	"posit(8,1)", "posit(8,2)", "posit(6,1)", "posit(16,1)", "posit(16,2)", "posit(32,2)",
	"fp8-e4m3", "fp8-e5m2", "fp16", "bf16", "fixed(8,4)",
}

func benchNormal() []float32 {
	rng := rand.New(rand.NewPCG(1, 0))
	xs := make([]float32, benchLen)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
	}
	return xs
}

func benchWide() []float32 {
	rng := rand.New(rand.NewPCG(2, 0))
	xs := make([]float32, benchLen)
	for i := range xs {
		x := float32(math.Exp2(rng.Float64()*80 - 40))
		if rng.IntN(2) == 0 {
			x = -x
		}
		xs[i] = x
	}
	return xs
}

func benchmarkRound(b *testing.B, src []float32, round func(dst, src []float32)) {
	dst := make([]float32, len(src))
	b.ReportAllocs()
	for b.Loop() {
		round(dst, src)
	}
	b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
}

func benchmarkQuantize(b *testing.B, src []float32) {
	for _, name := range benchFormats {
		b.Run(name, func(b *testing.B) {
			f, err := Parse(name)
			if err != nil {
				b.Skip(err)
			}
			benchmarkRound(b, src, f.RoundSlice)
		})
	}
}

func BenchmarkQuantize(b *testing.B) { benchmarkQuantize(b, benchNormal()) }

func BenchmarkQuantizeWide(b *testing.B) { benchmarkQuantize(b, benchWide()) }

// BenchmarkQuantizeKernel runs each posit kernel this machine has (go,
// avx2, avx512) on the normal inputs.
func BenchmarkQuantizeKernel(b *testing.B) {
	src := benchNormal()
	for _, kern := range positKernels() {
		for _, name := range []string{"posit(8,1)", "posit(16,1)"} {
			p := MustParse(name).(Posit)
			b.Run(kern.name+"/"+name, func(b *testing.B) {
				benchmarkRound(b, src, func(dst, src []float32) { kern.round(dst, src, p) })
			})
		}
	}
}

func BenchmarkQuantizeStochastic(b *testing.B) {
	src := benchNormal()
	for _, name := range []string{"posit(8,1)"} {
		b.Run(name, func(b *testing.B) {
			f := MustParse(name)
			rng := rand.NewPCG(3, 0)
			benchmarkRound(b, src, func(dst, src []float32) { f.RoundSliceStochastic(dst, src, rng) })
		})
	}
}
