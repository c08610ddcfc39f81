package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ganStep is one DCGAN training step in the two-graph pattern: a D-step
// graph and a G-step graph whose parameter nodes hold the same tensors,
// each with its own machine and Adam solver.
type ganStep struct {
	dm, gm           gorgonia.VM
	dSolver, gSolver gorgonia.Solver
	dParams, gParams gorgonia.Nodes
	lossD, lossG     *gorgonia.Node
	zD, zG, real     []float32
	rng              *rand.Rand
}

func newGANStep(pol *quant.Policy, batch, size, nz, base int, seed uint64) (*ganStep, error) {
	s := &ganStep{rng: rand.New(rand.NewPCG(seed, 99))}
	dg, gg := gorgonia.NewGraph(), gorgonia.NewGraph()
	m, err := newDCGAN(dg, pol, tensor.Float32, size, nz, base, seed)
	if err != nil {
		return nil, err
	}
	mg := m.share(gg)
	in := func(g *gorgonia.ExprGraph, name string, shape ...int) (*gorgonia.Node, []float32) {
		t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
		return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name)), t.Data().([]float32)
	}
	// D step: real images and G(zD).
	realN, real := in(dg, "real", batch, 1, size, size)
	zDN, zD := in(dg, "z", batch, nz)
	fake, err := m.generator(zDN)
	if err != nil {
		return nil, err
	}
	dReal, err := m.discriminator(realN)
	if err != nil {
		return nil, err
	}
	dFake, err := m.discriminator(fake)
	if err != nil {
		return nil, err
	}
	lr, err := softplusMean(dReal, -1)
	if err != nil {
		return nil, err
	}
	lf, err := softplusMean(dFake, 1)
	if err != nil {
		return nil, err
	}
	if s.lossD, err = gorgonia.Add(lr, lf); err != nil {
		return nil, err
	}
	s.dParams = m.dParams()
	if _, err = gorgonia.Grad(s.lossD, s.dParams...); err != nil {
		return nil, fmt.Errorf("D gradients: %w", err)
	}
	// G step: D(G(zG)) labelled real.
	zGN, zG := in(gg, "z", batch, nz)
	fakeG, err := mg.generator(zGN)
	if err != nil {
		return nil, err
	}
	dG, err := mg.discriminator(fakeG)
	if err != nil {
		return nil, err
	}
	if s.lossG, err = softplusMean(dG, -1); err != nil {
		return nil, err
	}
	s.gParams = mg.gParams()
	if _, err = gorgonia.Grad(s.lossG, s.gParams...); err != nil {
		return nil, fmt.Errorf("G gradients: %w", err)
	}
	s.real, s.zD, s.zG = real, zD, zG
	for i := range s.real {
		s.real[i] = float32(math.Tanh(s.rng.NormFloat64()))
	}
	s.dm, s.gm = gorgonia.NewTapeMachine(dg), gorgonia.NewTapeMachine(gg)
	adam := func() gorgonia.Solver {
		return gorgonia.NewAdamSolver(gorgonia.WithLearnRate(2e-4), gorgonia.WithBeta1(0.5))
	}
	s.dSolver, s.gSolver = adam(), adam()
	return s, nil
}

func (s *ganStep) close() { s.dm.Close(); s.gm.Close() }

// step runs one D step and one G step with fresh noise.
func (s *ganStep) step() error {
	for _, z := range [][]float32{s.zD, s.zG} {
		for i := range z {
			z[i] = float32(s.rng.NormFloat64())
		}
	}
	for _, p := range []struct {
		m      gorgonia.VM
		solver gorgonia.Solver
		params gorgonia.Nodes
	}{{s.dm, s.dSolver, s.dParams}, {s.gm, s.gSolver, s.gParams}} {
		if err := p.m.RunAll(); err != nil {
			return err
		}
		if err := p.solver.Step(gorgonia.NodesToValueGrads(p.params)); err != nil {
			return err
		}
		p.m.Reset()
	}
	return nil
}

func (s *ganStep) losses() (float32, float32) {
	return s.lossD.Value().Data().(float32), s.lossG.Value().Data().(float32)
}

// TestGANTrainSteps runs a few steps of the two-graph pattern: the losses
// stay finite, both networks change, and the same seed gives the same bits.
func TestGANTrainSteps(t *testing.T) {
	pol, err := quant.ParsePolicy("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	var first [2]float32
	for rep := 0; rep < 2; rep++ {
		s, err := newGANStep(pol, 4, 8, 5, 4, 3)
		if err != nil {
			t.Fatal(err)
		}
		w0 := append([]float32(nil), s.gParams[0].Value().Data().([]float32)...)
		d0 := append([]float32(nil), s.dParams[0].Value().Data().([]float32)...)
		for i := 0; i < 3; i++ {
			if err := s.step(); err != nil {
				t.Fatal(err)
			}
		}
		ld, lg := s.losses()
		if math.IsNaN(float64(ld)) || math.IsNaN(float64(lg)) {
			t.Fatalf("losses %v %v", ld, lg)
		}
		if equal32(w0, s.gParams[0].Value().Data().([]float32)) || equal32(d0, s.dParams[0].Value().Data().([]float32)) {
			t.Errorf("a network did not change in three steps")
		}
		s.close()
		if rep == 0 {
			first = [2]float32{ld, lg}
		} else if first != [2]float32{ld, lg} {
			t.Errorf("same seed, different losses: %v then %v", first, [2]float32{ld, lg})
		}
	}
}

func equal32(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The benchmarks' model: a DCGAN-style pair on 28×28 images, batch 64
// (G: fc 100→128·7·7, BN, ReLU, convT 128→64, BN, ReLU, convT 64→1, tanh;
// D: conv 1→64, LeakyReLU, conv 64→128, BN, LeakyReLU, fc 6272→1; 4×4
// kernels, stride 2), one D step plus one G step with Adam.
const benchBatch, benchSize, benchNZ, benchBase = 64, 28, 100, 64

var benchPolicies = []string{"fp32", "posit8+", "fp8-ibm", "posit8+-quire", "posit8+-per-op"}

func benchStep(b *testing.B, name string) *ganStep {
	pol, err := quant.ParsePolicy(name)
	if err != nil {
		b.Fatal(err)
	}
	s, err := newGANStep(pol, benchBatch, benchSize, benchNZ, benchBase, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.step(); err != nil { // warm-up: buffers and rounding tables
		b.Fatal(err)
	}
	return s
}

// BenchmarkTrainStep times one training step under each policy. Besides
// ns/op it reports cpu-ms/step, the process CPU time per step (all
// threads), which varies less than wall time on a shared machine.
func BenchmarkTrainStep(b *testing.B) {
	b.Logf("BLAS: %s", gemm.Backend())
	for _, name := range benchPolicies {
		b.Run(name, func(b *testing.B) {
			s := benchStep(b, name)
			defer s.close()
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.step(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/step")
		})
	}
}

// BenchmarkTrainStepRatio measures the cost of each policy relative to
// fp32: every iteration runs one fp32 step and one step of the policy, and
// x-fp32 is the ratio of their total wall times. Alternating the two
// cancels the slow drift of load on a shared machine that separate
// benchmarks suffer from; cpu-x-fp32 is the same ratio of process CPU
// time, steadier still when other processes compete for the cores. The bars: posit8+ and fp8-ibm within 1.15,
// quire within 2, per-op within 10.
func BenchmarkTrainStepRatio(b *testing.B) {
	b.Logf("BLAS: %s", gemm.Backend())
	// fp32 against itself is the control: it shows the bias and noise of
	// the measurement.
	for _, name := range benchPolicies {
		b.Run(name, func(b *testing.B) {
			ref, s := benchStep(b, "fp32"), benchStep(b, name)
			defer ref.close()
			defer s.close()
			var tRef, tPol time.Duration
			var cRef, cPol int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0, c0 := time.Now(), cpuTime()
				if err := ref.step(); err != nil {
					b.Fatal(err)
				}
				t1, c1 := time.Now(), cpuTime()
				if err := s.step(); err != nil {
					b.Fatal(err)
				}
				tRef += t1.Sub(t0)
				tPol += time.Since(t1)
				cRef += c1 - c0
				cPol += cpuTime() - c1
			}
			b.ReportMetric(float64(tPol)/float64(tRef), "x-fp32")
			b.ReportMetric(float64(cPol)/float64(cRef), "cpu-x-fp32")
			b.ReportMetric(float64(tPol.Milliseconds())/float64(b.N), "ms/step")
		})
	}
}

// cpuTime returns the CPU time the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
