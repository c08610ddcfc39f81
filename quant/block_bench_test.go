package quant_test

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// BenchmarkBlockRound compares block rounding along rows and down columns
// with the element format's own kernel, on a 256×1024 Gaussian matrix.
func BenchmarkBlockRound(b *testing.B) {
	const rows, cols = 256, 1024
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, rows*cols)
	for i := range src {
		src[i] = float32(rng.NormFloat64())
	}
	dst := make([]float32, len(src))
	for _, name := range []string{"mxfp8-e4m3", "mxfp4-e2m1", "mxint8", "posit(8,1,block=32)"} {
		bf := quant.MustParseBlock(name)
		for _, axis := range []quant.Axis{quant.AlongRow, quant.AlongColumn} {
			b.Run(name+"/"+axis.String(), func(b *testing.B) {
				for b.Loop() {
					bf.RoundMatrix(dst, src, rows, cols, axis, quant.Nearest, nil)
				}
				b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds(), "elem/s")
			})
		}
		b.Run(bf.Elem().String()+"/elementwise", func(b *testing.B) {
			for b.Loop() {
				bf.Elem().RoundSlice(dst, src)
			}
			b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
}
