package gan_test

import (
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// BenchmarkAdamStep measures one Adam update of a million values: float32,
// and with every optimiser role rounded (grad, moments, master).
func BenchmarkAdamStep(b *testing.B) {
	const n = 1 << 20
	for _, c := range []struct{ name, format string }{{"fp32", ""}, {"posit(16,1)", "posit(16,1)"}, {"posit(8,2)", "posit(8,2)"}, {"fp16", "fp16"}} {
		b.Run(c.name, func(b *testing.B) {
			a := gan.NewAdam([]int{n})
			if c.format != "" {
				f, err := quant.Parse(c.format)
				if err != nil {
					b.Fatal(err)
				}
				r := nn.Quantizer{Format: f}
				a.Formats = []gan.ParamFormats{{Grad: r, Moment1: r, Moment2: r, Master: r}}
			}
			p, g := make([]float32, n), make([]float32, n)
			for i := range p {
				p[i], g[i] = float32(i%1000)/1e4, float32(i%77-38)/1e3
			}
			for b.Loop() {
				a.Step([][]float32{p}, [][]float32{g}, 1024)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
}
