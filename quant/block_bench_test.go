package quant_test

import (
	"math/rand/v2"
	"strconv"
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

// BenchmarkRoundPanels times the rounding of one packed block of a GEMM's
// op(B) (256 steps of the sum by 1024 columns, N(0, 0.05²)) in panels of
// 16 (AVX2) and 32 (AVX-512) columns, against RoundMatrix down the
// columns of the same values unpacked, in place.
func BenchmarkRoundPanels(b *testing.B) {
	const rows, cols = 256, 1024
	rng := rand.New(rand.NewPCG(1, 3))
	src := make([]float32, rows*cols)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 0.05)
	}
	buf := make([]float32, len(src))
	bf := quant.MustParseBlock("mxfp8-e4m3")
	for _, width := range []int{16, 32} {
		b.Run("panels-"+strconv.Itoa(width), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, src)
				bf.RoundPanels(buf, rows, width, cols)
			}
			b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
	b.Run("matrix", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(buf, src)
			bf.RoundMatrix(buf, buf, rows, cols, quant.AlongColumn, quant.Nearest, nil)
		}
		b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds(), "elem/s")
	})
}
