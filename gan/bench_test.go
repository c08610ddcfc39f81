package gan_test

import (
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

func imageShape(c, h, w int) datasets.Shape { return datasets.Shape{C: c, H: h, W: w} }

// BenchmarkTrainStep measures one training step (a D and a G update) of
// the default MNIST CGAN, the default 28x28 DCGAN (32 base features) and
// dcgan64 (64 base features, the model of bench/pytorch_step.py) at batch
// 64, on synthetic data, by wall time (ms/step) and by the process's CPU
// time (cpu-ms/step: the sum over threads, and steadier on a shared
// machine). Run with -cpu 1 for one thread; build with -tags openblas to
// use OpenBLAS for the float32 products.
func BenchmarkTrainStep(b *testing.B) {
	cgan, err := models.DefaultConfig(models.CGAN, imageShape(1, 28, 28), 2)
	if err != nil {
		b.Fatal(err)
	}
	dcgan, err := models.DefaultConfig(models.DCGAN, imageShape(1, 28, 28), 0)
	if err != nil {
		b.Fatal(err)
	}
	dcgan64 := dcgan
	dcgan64.Features = 64
	ds := toyData(b, 256, 28, 1)
	for _, c := range []struct {
		name string
		cfg  models.Config
	}{{"cgan", cgan}, {"dcgan", dcgan}, {"dcgan64", dcgan64}} {
		for _, policy := range []string{"fp32", "posit8+"} {
			b.Run(c.name+"/"+policy, func(b *testing.B) {
				tr := newTrainer(b, c.cfg, ds, gan.Options{Policy: mustPolicy(b, policy), Batch: 64, Seed: 1})
				if _, err := tr.TrainStep(); err != nil { // warm up the buffers
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for b.Loop() {
					if _, err := tr.TrainStep(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/step")
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/step")
			})
		}
	}
}
