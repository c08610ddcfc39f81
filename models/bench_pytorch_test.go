package models

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// The published-size generators of issue 28's speed and memory bar, one
// image each, as bench/vs-pytorch-infer times them beside PyTorch
// (bench/pytorch_infer.py builds the same networks):
//
//	esrgan    RRDBNet x4, 64 features, 23 RRDBs, growth 32, 128×128 input
//	cyclegan  ResnetGenerator resnet_9blocks, ngf 64, 256×256 input
//
// The weights are random (PyTorch's default initialisation,
// U(±1/√fan_in)): the time of a forward pass does not depend on them.
var torchBenchNets = []struct {
	name, arch string
	cfg        Config
	group      string
	shape      []int
}{
	{"esrgan", "esrgan", Config{Arch: ESRGANPyTorch, Channels: 3, Height: 128, Width: 128, Features: 64,
		Options: map[string]string{"blocks": "23", "gc": "32", "layout": "basicsr"}}, GroupG, []int{1, 3, 128, 128}},
	{"cyclegan", "cyclegan", Config{Arch: CycleGANPyTorch, Channels: 3, Height: 256, Width: 256, Features: 64,
		Options: map[string]string{"blocks": "9"}}, GroupGAB, []int{1, 3, 256, 256}},
}

// BenchmarkTorchInference runs each imported generator on one image in
// fp32 and in posit6-deploy, as upscale and translate do (gan.Applier,
// built once, after one run). It reports the wall and the CPU time (user and system, of
// every thread: the figure that a shared machine disturbs least) per
// image, ms/image and cpu-ms/image, and, as peak-RSS-MB, the process's
// VmHWM after the run: run one sub-benchmark per process
// (-test.bench 'BenchmarkTorchInference/^esrgan$/^fp32$') for that to be
// the figure of one network and policy.
func BenchmarkTorchInference(b *testing.B) {
	for _, n := range torchBenchNets {
		b.Run(n.name, func(b *testing.B) {
			for _, pol := range []string{"fp32", "posit6-deploy"} {
				b.Run(pol, func(b *testing.B) {
					c := randomTorchCheckpoint(b, n.arch, n.cfg)
					p, err := policy.Parse(pol)
					if err != nil {
						b.Fatal(err)
					}
					nets, _, err := Load(c, p)
					if err != nil {
						b.Fatal(err)
					}
					a, err := gan.NewApplier(nets, n.group, n.shape)
					if err != nil {
						b.Fatal(err)
					}
					r := rand.New(rand.NewPCG(1, 2))
					x := make([]float32, n.shape[0]*n.shape[1]*n.shape[2]*n.shape[3])
					for i := range x {
						x[i] = float32(2*r.Float64() - 1)
					}
					y := make([]float32, a.OutSize())
					c, nets = nil, nil // only the applier's graph is needed from here
					// One run first, as PyTorch's side warms up: the first
					// allocates the layers' buffers.
					if err := a.Apply(y, x); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for range b.N {
						if err := a.Apply(y, x); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					images := float64(b.N * n.shape[0])
					b.ReportMetric(float64(b.Elapsed().Milliseconds())/images, "ms/image")
					b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/images, "cpu-ms/image")
					if hwm := vmHWM(); hwm > 0 {
						b.ReportMetric(hwm, "peak-RSS-MB")
					}
				})
			}
		})
	}
}

// randomTorchCheckpoint imports a state dict of architecture arch with
// the sizes of cfg and random weights.
func randomTorchCheckpoint(tb testing.TB, arch string, cfg Config) *ckpt.Checkpoint {
	tb.Helper()
	a, err := LookupTorch(arch)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s := nn.NewScope(gorgonia.NewGraph(), func(string) nn.LayerFormats { return nn.LayerFormats{} }, 0)
	gs, err := m.Build(s)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	sd := map[string]ckpt.Tensor{}
	for _, g := range gs {
		for _, p := range g.Net.Params() {
			sh := []int(p.Node.Shape().Clone())
			size, fanIn := 1, 1
			for i, d := range sh {
				size *= d
				if i > 0 {
					fanIn *= d
				}
			}
			bound := 1 / math.Sqrt(float64(fanIn))
			data := make([]float32, size)
			for i := range data {
				data[i] = float32(bound * (2*r.Float64() - 1))
			}
			sd[a.Key(cfg, p.Name)] = ckpt.Tensor{Shape: sh, Data: data}
		}
	}
	c, err := importStateDict(a, sd)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// cpuTime returns the CPU time the process has used, user and system, or
// 0 where getrusage fails.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// vmHWM returns the process's peak resident set size in MB (VmHWM of
// /proc/self/status), or 0 where there is none.
func vmHWM() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}
