package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/compute"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// matrixCPU is the CPU backend under another type: fuseCols and
// compute.GemmColsBlocked do not take it, so the convolutions build their
// column matrices, block-round them whole and multiply them.
type matrixCPU struct{ compute.CPU }

func (matrixCPU) Name() string { return "matrix-cpu" }

// TestConvBlockedColumns checks float32 convolutions with block-rounded
// operands, whose columns are rounded as the GEMM packs them from the
// images (fuseCols, compute.GemmColsBlocked), against the same layers on
// a backend that builds the column matrix, rounds it whole and packs it:
// output and every gradient bit for bit. Conv2d and ConvTranspose2d, sums
// shorter than a block, of several blocks and of more than one of the
// GEMM's blocks of the sum (640 taps), with and without padding, MX and
// block posit formats, block sizes that divide the GEMM's blocks of the
// sum and one that does not; inputs with zero regions (zero blocks); and
// the same forward in a graph without gradients (the node lends its
// buffers, and an unpadded input is read in place).
func TestConvBlockedColumns(t *testing.T) {
	type convCase struct {
		name           string
		transposed     bool
		in             []int // batch, channels, H, W
		out, k, s, pad int
	}
	cases := []convCase{
		{"conv k4s2p1 16 taps", false, []int{3, 1, 12, 12}, 8, 4, 2, 1},
		{"conv k4s2p1 640 taps", false, []int{2, 40, 10, 10}, 24, 4, 2, 1},
		{"conv k3s1p0 45 taps", false, []int{2, 5, 9, 9}, 7, 3, 1, 0},
		{"convT k4s2p1", true, []int{2, 40, 5, 5}, 20, 4, 2, 1},
		{"convT k4s2p1 to 1 channel", true, []int{3, 16, 7, 7}, 1, 4, 2, 1},
		{"convT k3s1p0", true, []int{2, 9, 6, 6}, 33, 3, 1, 0},
	}
	formats := []LayerFormats{
		blockFormats("mxfp8-e4m3", "mxfp8-e4m3", "mxfp8-e5m2"),
		blockFormats("mxfp6-e2m3", "posit(8,1,block=32)", "mxfp4-e2m1(block=16)"),
		blockFormats("mxint8", "mxfp8-e4m3(block=24)", "mxfp8-e4m3(block=24)"),
		blockFormats("mxfp6-e2m3", "mxfp4-e2m1", "mxfp6-e3m2"), // every operand rounded in the packing
	}
	for _, c := range cases {
		for fi, f := range formats {
			for _, grad := range []bool{true, false} {
				name := fmt.Sprintf("%s formats %d gradients %v", c.name, fi, grad)
				run := func() [][]float32 {
					return runConvBlocked(t, c.transposed, c.in, c.out, c.k, c.s, c.pad, f, grad)
				}
				got := run()
				old := compute.Current()
				compute.Use(matrixCPU{})
				want := run()
				compute.Use(old)
				for i, what := range []string{"y", "dx", "dw", "db"}[:len(want)] {
					for j := range want[i] {
						if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
							t.Fatalf("%s: %s[%d] = %#x, want %#x", name, what, j, math.Float32bits(got[i][j]), math.Float32bits(want[i][j]))
						}
					}
				}
			}
		}
	}
}

// runConvBlocked builds a float32 convolution with formats f on fixed
// random data (a third of the input's rows zero), runs it and returns its
// output and, if grad, its gradients for the loss Σ y·c.
func runConvBlocked(t *testing.T, transposed bool, in []int, out, k, s, pad int, f LayerFormats, grad bool) [][]float32 {
	t.Helper()
	g := gorgonia.NewGraph()
	rng := rand.New(rand.NewPCG(30, 97))
	var fwd func(*gorgonia.Node) (*gorgonia.Node, error)
	var ps gorgonia.Nodes
	if transposed {
		l, err := NewConvTranspose2d(g, "ct", in[1], out, k, s, pad, 0, f, WithDtype(tensor.Float32), WithSeed(4))
		if err != nil {
			t.Fatal(err)
		}
		fwd, ps = l.Fwd, l.Params()
	} else {
		l, err := NewConv2d(g, "c", in[1], out, k, s, pad, f, WithDtype(tensor.Float32), WithSeed(4))
		if err != nil {
			t.Fatal(err)
		}
		fwd, ps = l.Fwd, l.Params()
	}
	for _, p := range ps {
		d := p.Value().Data().([]float32)
		for i := range d {
			d[i] = float32(rng.NormFloat64() * 0.1)
		}
	}
	rowLen := in[3]
	x := gorgonia.NodeFromAny(g, newParam(tensor.Float32, in, func(i int) float64 {
		if (i/rowLen)%3 == 1 {
			return 0
		}
		return rng.NormFloat64()
	}), gorgonia.WithName("x"))
	y, err := fwd(x)
	if err != nil {
		t.Fatal(err)
	}
	wrt := append(gorgonia.Nodes{x}, ps...)
	var grads gorgonia.Nodes
	if grad {
		n := y.Shape().TotalSize()
		flat := must(gorgonia.Reshape(y, tensor.Shape{n}))
		cv := gorgonia.NodeFromAny(g, newParam(tensor.Float32, []int{n}, func(int) float64 { return rng.NormFloat64() }), gorgonia.WithName("c"))
		loss := must(gorgonia.Sum(must(gorgonia.HadamardProd(flat, cv))))
		if grads, err = gorgonia.Grad(loss, wrt...); err != nil {
			t.Fatal(err)
		}
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	res := [][]float32{append([]float32(nil), y.Value().Data().([]float32)...)}
	for _, gn := range grads {
		res = append(res, append([]float32(nil), gn.Value().Data().([]float32)...))
	}
	return res
}
