package gan_test

import (
	"testing"
	"time"

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
	ds := toyData(b, 256, 28, 1)
	for _, c := range benchModels(b, "cgan", "dcgan", "dcgan64", "dcgan28") {
		for _, policy := range []string{"fp32", "posit8+"} {
			b.Run(c.name+"/"+policy, func(b *testing.B) {
				tr := newTrainer(b, c.cfg, ds, gan.Options{Policy: mustPolicy(b, policy), Batch: 64, Seed: 1})
				benchStep(b, tr) // warm up the buffers
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for b.Loop() {
					benchStep(b, tr)
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/step")
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/step")
			})
		}
	}
}

// A benchModel is a model of the step benchmarks.
type benchModel struct {
	name string
	cfg  models.Config
}

// benchModels returns the step benchmarks' models of the given names:
// "cgan" the default MNIST CGAN, "dcgan" the default 28x28 DCGAN (32 base
// features), "dcgan64" the same with 64 base features (G
// 100→128·7·7→64·14·14→1·28·28, D its mirror; the model of
// bench/pytorch_step.py), "dcgan28" issue 13's DCGAN-28 (G 100→256·7·7→
// 128·14·14→1·28·28, D 1→64→128→1).
func benchModels(b *testing.B, names ...string) []benchModel {
	b.Helper()
	cgan, dcgan := mnistConfig(b, models.CGAN, 2), mnistConfig(b, models.DCGAN, 0)
	dcgan64 := dcgan
	dcgan64.Features = 64
	dcgan28, err := dcgan64.WithOptions(map[string]string{"g_features": "128"})
	if err != nil {
		b.Fatal(err)
	}
	all := map[string]models.Config{"cgan": cgan, "dcgan": dcgan, "dcgan64": dcgan64, "dcgan28": dcgan28}
	ms := make([]benchModel, len(names))
	for i, n := range names {
		cfg, ok := all[n]
		if !ok {
			b.Fatalf("no benchmark model %q", n)
		}
		ms[i] = benchModel{n, cfg}
	}
	return ms
}

// benchStep runs one training step of tr.
func benchStep(b *testing.B, tr *gan.Trainer) {
	if _, err := tr.TrainStep(); err != nil {
		b.Fatal(err)
	}
}

// stepTimes are the summed wall and CPU times (ns) of the steps of a
// reference trainer and of the trainer measured against it.
type stepTimes struct {
	wallRef, wallPol time.Duration
	cpuRef, cpuPol   int64
}

// alternate runs a step of ref and one of tr per iteration of b.Loop
// (after a step of each to warm up their buffers and rounding tables) and
// returns their times. Alternating the two cancels the slow drift of load
// on a shared machine that separate benchmarks suffer from.
func alternate(b *testing.B, ref, tr *gan.Trainer) stepTimes {
	benchStep(b, ref)
	benchStep(b, tr)
	var st stepTimes
	for b.Loop() {
		t0, c0 := time.Now(), cpuTime()
		benchStep(b, ref)
		t1, c1 := time.Now(), cpuTime()
		benchStep(b, tr)
		st.wallRef += t1.Sub(t0)
		st.wallPol += time.Since(t1)
		st.cpuRef += c1 - c0
		st.cpuPol += cpuTime() - c1
	}
	return st
}
