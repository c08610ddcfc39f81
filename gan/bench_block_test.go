package gan_test

import (
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
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
	ds := toyData(b, 256, 28, 1)
	for _, c := range benchModels(b, "cgan", "dcgan64") {
		for _, tc := range []struct {
			block string
			elem  *policy.Policy
		}{
			{"mxfp8", policyWith(b, "fp32 dot=fp8-e4m3 err=fp8-e5m2")},
			{"posit8-block", policyWith(b, "fp32 dot=posit(8,1) err=posit(8,1)")},
		} {
			b.Run(c.name+"/"+tc.block, func(b *testing.B) {
				ref := newTrainer(b, c.cfg, ds, gan.Options{Policy: tc.elem, Batch: 64, Seed: 1})
				tr := newTrainer(b, c.cfg, ds, gan.Options{Policy: mustPolicy(b, tc.block), Batch: 64, Seed: 1})
				st := alternate(b, ref, tr)
				cBlk, cRef := st.cpuPol, st.cpuRef
				b.ReportMetric(float64(cBlk)/float64(cRef), "cpu-x-elem")
				b.ReportMetric(float64(cBlk)/1e6/float64(b.N), "cpu-ms/step")
				b.ReportMetric(float64(cRef)/1e6/float64(b.N), "elem-cpu-ms/step")
			})
		}
	}
}
