package gan_test

import (
	"testing"

	"github.com/positgan/positgan/gan"
)

// sparseBenchPolicies are the dense policies BenchmarkSparseStepRatio
// masks 2:4.
var sparseBenchPolicies = []string{"fp32", "posit8+"}

// BenchmarkSparseStepRatio measures what N:M weight masks cost (issue 31:
// 2:4 on the weights within 1.15 of the same policy dense): as
// BenchmarkTrainStepRatio, alternating steps of the dense policy's trainer
// and of POLICY@2:4's, x-dense (cpu-x-dense) being the ratio of their
// total wall (CPU) times. The masks are recomputed from the master
// weights at every read (each graph run that reads a layer), as Arbitor
// does; the products stay dense GEMMs on the masked weights. The machine
// is shared: compare runs of a few repetitions (-count), not one.
func BenchmarkSparseStepRatio(b *testing.B) {
	ds := toyData(b, 256, 28, 1)
	for _, c := range benchModels(b, "cgan", "dcgan64") {
		for _, policy := range sparseBenchPolicies {
			b.Run(c.name+"/"+policy+"@2:4", func(b *testing.B) {
				ref := newTrainer(b, c.cfg, ds, gan.Options{Policy: mustPolicy(b, policy), Batch: 64, Seed: 1})
				tr := newTrainer(b, c.cfg, ds, gan.Options{Policy: mustPolicy(b, policy+"@2:4"), Batch: 64, Seed: 1})
				b.ReportAllocs()
				st := alternate(b, ref, tr)
				n := float64(b.N)
				b.ReportMetric(float64(st.wallPol)/float64(st.wallRef), "x-dense")
				b.ReportMetric(float64(st.cpuPol)/float64(st.cpuRef), "cpu-x-dense")
				b.ReportMetric(float64(st.wallPol)/1e6/n, "ms/step")
				b.ReportMetric(float64(st.cpuPol)/1e6/n, "cpu-ms/step")
			})
		}
	}
}
