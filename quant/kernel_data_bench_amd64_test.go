//go:build amd64 && !purego

package quant

import (
	"math/rand/v2"
	"testing"
)

// kernelBenchData returns n values shaped like the tensors a GAN step
// rounds: in one format's fast span only ("inspan"), normal with σ 0.02
// like weights ("weights": a few per cent of them below the smallest
// codes of the 8-bit formats), and weights with 1% exact zeros
// ("zeros"), the blocks that leave the vector kernels' fast path.
func kernelBenchData(n int) map[string][]float32 {
	rng := rand.New(rand.NewPCG(5, 0))
	d := map[string][]float32{"inspan": make([]float32, n), "weights": make([]float32, n), "zeros": make([]float32, n)}
	for i := range n {
		d["inspan"][i] = float32(0.01 + rng.Float64()*0.05)
		w := float32(rng.NormFloat64() * 0.02)
		d["weights"][i] = w
		if rng.IntN(100) == 0 {
			w = 0
		}
		d["zeros"][i] = w
	}
	return d
}

// BenchmarkRoundKernelData runs every posit and float kernel this machine
// has on kernelBenchData, 16 K values (in a core's L2, so that the
// kernels' arithmetic shows rather than memory), to the formats posit8+
// and fp8-ibm give weights: posit(8,1,scale=4) and fp8-ibm-fwd. ns/value
// is the time per value.
//
// Run with: go test ./quant -run '^$' -bench RoundKernelData -cpu 1
func BenchmarkRoundKernelData(b *testing.B) {
	const n = 1 << 14
	data := kernelBenchData(n)
	dst := make([]float32, n)
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
	}
	p := MustParse("posit(8,1,scale=4)").(Posit)
	f := MustParse("fp8-ibm-fwd").(Float)
	k, _ := f.kernel()
	for _, name := range []string{"inspan", "weights", "zeros"} {
		src := data[name]
		for _, kern := range positKernels() {
			b.Run("posit/"+name+"/"+kern.name, func(b *testing.B) {
				for b.Loop() {
					kern.round(dst, src, p)
				}
				report(b)
			})
		}
		if floatAVX2 {
			b.Run("fp8/"+name+"/avx2", func(b *testing.B) {
				for b.Loop() {
					roundFloatAVX2(&dst[0], &src[0], n, &k)
				}
				report(b)
			})
		}
		if positAVX512 {
			b.Run("fp8/"+name+"/avx512", func(b *testing.B) {
				for b.Loop() {
					roundFloatAVX512(&dst[0], &src[0], n, &k)
				}
				report(b)
			})
		}
	}
}
