package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// TestApplierRecycleSameBits: gan.Applier runs its program recycling the
// layers' buffers (graphexec.Program.Recycle); its outputs must be those
// of the same network run as a plain program, which keeps every result,
// bit for bit, in fp32 and in posit6-deploy, run after run. The networks
// are small RRDBNet and ResnetGenerator imports (dense blocks, residual
// skips, instance norm, reflection padding, transposed convolutions).
func TestApplierRecycleSameBits(t *testing.T) {
	nets := []struct {
		name, arch string
		cfg        Config
		group      string
		shape      []int
	}{
		{"esrgan", "esrgan", Config{Arch: ESRGANPyTorch, Channels: 3, Height: 32, Width: 32, Features: 8,
			Options: map[string]string{"blocks": "2", "gc": "4", "layout": "basicsr"}}, GroupG, []int{2, 3, 12, 12}},
		{"cyclegan", "cyclegan", Config{Arch: CycleGANPyTorch, Channels: 3, Height: 16, Width: 16, Features: 4,
			Options: map[string]string{"blocks": "2"}}, GroupGAB, []int{1, 3, 16, 16}},
	}
	for _, n := range nets {
		for _, pol := range []string{"fp32", "posit6-deploy"} {
			t.Run(n.name+"/"+pol, func(t *testing.T) {
				p, err := policy.Parse(pol)
				if err != nil {
					t.Fatal(err)
				}
				loaded, _, err := Load(randomTorchCheckpoint(t, n.arch, n.cfg), p)
				if err != nil {
					t.Fatal(err)
				}
				a, err := gan.NewApplier(loaded, n.group, n.shape)
				if err != nil {
					t.Fatal(err)
				}
				// The plain program: NewApplier's graph, not recycled.
				g := gorgonia.NewGraph()
				xt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n.shape...))
				x := gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x"))
				m := loaded.Net(n.group).Share(g)
				nn.SetTraining(m, loaded.BatchStats)
				out, err := m.Forward(&nn.Pass{FreezeStats: true}, x)
				if err != nil {
					t.Fatal(err)
				}
				plain, err := graphexec.Compile(out)
				if err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(5, 6))
				in := xt.Data().([]float32)
				got := make([]float32, a.OutSize())
				for run := range 3 {
					for i := range in {
						in[i] = float32(2*r.Float64() - 1)
					}
					if err := plain.Run(); err != nil {
						t.Fatal(err)
					}
					if err := a.Apply(got, in); err != nil {
						t.Fatal(err)
					}
					want := out.Value().Data().([]float32)
					if len(got) != len(want) {
						t.Fatalf("%d values, the plain program %d", len(got), len(want))
					}
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("run %d: value %d is %g, the plain program's %g", run, i, got[i], want[i])
						}
					}
					if slices.Equal(got, make([]float32, len(got))) {
						t.Fatal("all zero")
					}
				}
			})
		}
	}
}
