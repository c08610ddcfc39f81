package gan_test

import (
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

// BenchmarkBlockOverhead measures what the blocks of a block-format
// preset cost over the same element formats without blocks: every
// iteration runs one training step under the element-wise counterpart
// and one under the block preset, and cpu-x-elem is the ratio of their
// process CPU times, as BenchmarkTrainStepRatio's cpu-x-fp32 is against
// fp32. The counterparts round the same roles to the block
// presets' element formats: mxfp8 against E4M3 weights and activations
// with E5M2 errors, posit8-block against P(8,1) for all three. The bar
// is 1.3.
func BenchmarkBlockOverhead(b *testing.B) {
	cgan, err := models.DefaultConfig(models.CGAN, imageShape(1, 28, 28), 2)
	if err != nil {
		b.Fatal(err)
	}
	dcgan, err := models.DefaultConfig(models.DCGAN, imageShape(1, 28, 28), 0)
	if err != nil {
		b.Fatal(err)
	}
	dcgan.Features = 64
	ds := toyData(b, 256, 28, 1)
	elementwise := func(settings ...string) *quant.Policy {
		p := mustPolicy(b, "fp32")
		for _, s := range settings {
			if err := p.Apply(s); err != nil {
				b.Fatal(err)
			}
		}
		return p
	}
	for _, c := range []struct {
		name string
		cfg  models.Config
	}{{"cgan", cgan}, {"dcgan64", dcgan}} {
		for _, tc := range []struct {
			block string
			elem  *quant.Policy
		}{
			{"mxfp8", elementwise("dot=fp8-e4m3", "err=fp8-e5m2")},
			{"posit8-block", elementwise("dot=posit(8,1)", "err=posit(8,1)")},
		} {
			b.Run(c.name+"/"+tc.block, func(b *testing.B) {
				step := func(tr *gan.Trainer) {
					if _, err := tr.TrainStep(); err != nil {
						b.Fatal(err)
					}
				}
				ref := newTrainer(b, c.cfg, ds, gan.Options{Policy: tc.elem, Batch: 64, Seed: 1})
				tr := newTrainer(b, c.cfg, ds, gan.Options{Policy: mustPolicy(b, tc.block), Batch: 64, Seed: 1})
				step(ref) // warm up the buffers and rounding tables
				step(tr)
				var cRef, cBlk int64
				for b.Loop() {
					c0 := cpuTime()
					step(ref)
					c1 := cpuTime()
					step(tr)
					cRef += c1 - c0
					cBlk += cpuTime() - c1
				}
				b.ReportMetric(float64(cBlk)/float64(cRef), "cpu-x-elem")
				b.ReportMetric(float64(cBlk)/1e6/float64(b.N), "cpu-ms/step")
				b.ReportMetric(float64(cRef)/1e6/float64(b.N), "elem-cpu-ms/step")
			})
		}
	}
}
