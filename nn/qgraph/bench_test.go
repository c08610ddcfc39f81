package qgraph

import (
	"math"
	"strconv"
	"testing"

	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkQuantizeDo measures the op's forward pass on float32 tensors,
// including the output allocation every graph run pays.
func BenchmarkQuantizeDo(b *testing.B) {
	for _, r := range []quant.Rounding{quant.Nearest, quant.Stochastic} {
		for _, n := range []int{1 << 10, 1 << 16} {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(math.Sin(float64(i)))
			}
			x := tensor.New(tensor.WithShape(n), tensor.WithBacking(src))
			op := newQuantizeOp(p81, nil, r, r, 1, 0)
			b.Run(r.String()+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := op.Do(gorgonia.Value(x)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "elem/s")
			})
		}
	}
}
