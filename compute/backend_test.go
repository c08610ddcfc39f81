package compute_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// counting is a Backend that counts the calls of the kernels a quantized
// convolution, a batch norm, a leaky ReLU, an average pool and their
// gradients run, and leaves the work to the CPU backend it embeds: the
// smallest backend there is, and the one docs/adding-a-backend.md starts
// from.
type counting struct {
	compute.CPU
	calls map[string]int
}

func (c *counting) Name() string { return "counting" }

func (c *counting) Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	c.calls["Gemm"]++
	c.CPU.Gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

func (c *counting) Im2colBatch(dst, src []float32, n int, g compute.Geom) {
	c.calls["Im2colBatch"]++
	c.CPU.Im2colBatch(dst, src, n, g)
}

func (c *counting) Col2imBatch(dst, src []float32, n int, g compute.Geom) {
	c.calls["Col2imBatch"]++
	c.CPU.Col2imBatch(dst, src, n, g)
}

func (c *counting) Round(dst, src []float32, f quant.Format, mode quant.Rounding, rng *rand.PCG) {
	c.calls["Round"]++
	c.CPU.Round(dst, src, f, mode, rng)
}

func (c *counting) LeakyReLU(dst, x []float32, alpha float32) {
	c.calls["LeakyReLU"]++
	c.CPU.LeakyReLU(dst, x, alpha)
}

func (c *counting) LeakyReLUBack(dst, dy, x []float32, alpha float32) {
	c.calls["LeakyReLUBack"]++
	c.CPU.LeakyReLUBack(dst, dy, x, alpha)
}

func (c *counting) NormForward(w *compute.Workspace, y, x, gamma, beta, mean, variance []float32, mu, invstd []float64, g compute.Norm) {
	c.calls["NormForward"]++
	c.CPU.NormForward(w, y, x, gamma, beta, mean, variance, mu, invstd, g)
}

func (c *counting) NormSums(w *compute.Workspace, sumDy, sumDyHat []float64, dy, x []float32, mu, invstd []float64, g compute.Norm) {
	c.calls["NormSums"]++
	c.CPU.NormSums(w, sumDy, sumDyHat, dy, x, mu, invstd, g)
}

func (c *counting) NormBackX(w *compute.Workspace, dx, dy, gamma, x []float32, mu, invstd, sumDy, sumDyHat []float64, g compute.Norm) {
	c.calls["NormBackX"]++
	c.CPU.NormBackX(w, dx, dy, gamma, x, mu, invstd, sumDy, sumDyHat, g)
}

func (c *counting) AvgPool(dst, src []float32, g compute.Pool) {
	c.calls["AvgPool"]++
	c.CPU.AvgPool(dst, src, g)
}

func (c *counting) AvgPoolBack(dst, dy []float32, g compute.Pool) {
	c.calls["AvgPoolBack"]++
	c.CPU.AvgPoolBack(dst, dy, g)
}

// convStep runs a posit(8,1) convolution, a batch norm, a leaky ReLU and
// a 2×2 average pool forward and backward once, and returns the output,
// the convolution's weight gradient and the norm's scale gradient.
func convStep(t *testing.T) (y, dw, dgamma []float32) {
	t.Helper()
	p8 := nn.Quantizer{Format: quant.MustParse("posit(8,1)")}
	f := nn.LayerFormats{Weight: p8, Act: p8, Out: p8, Err: p8, WGrad: p8}
	g := gorgonia.NewGraph()
	conv, err := nn.NewConv2d(g, "conv", 2, 3, 3, 2, 1, f)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, 2*2*6*6)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
	}
	x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(2, 2, 6, 6), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(2, 2, 6, 6), tensor.WithBacking(xs))))
	bn, err := nn.NewBatchNorm(g, "bn", 3, 0.1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	out, err := conv.Fwd(x)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = bn.Fwd(out); err != nil {
		t.Fatal(err)
	}
	if out, err = nn.LeakyReLU(out, 0.2); err != nil {
		t.Fatal(err)
	}
	if out, err = nn.AvgPool2D(out, 2, 1); err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gorgonia.Grad(cost, conv.W, bn.Gamma); err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	grad, err := conv.W.Grad()
	if err != nil {
		t.Fatal(err)
	}
	gg, err := bn.Gamma.Grad()
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(out.Value().Data().([]float32)), slices.Clone(grad.Data().([]float32)),
		slices.Clone(gg.Data().([]float32))
}

// Use installs a backend that every layer then runs on: the counting
// backend sees the convolution's products, packing and rounding, the
// norm's, the activation's and the pool's kernels, forward and backward,
// and the results are the CPU backend's bit for bit.
func TestUse(t *testing.T) {
	wantY, wantDW, wantDG := convStep(t)

	c := &counting{calls: map[string]int{}}
	defer compute.Use(compute.Current())
	compute.Use(c)
	if got := compute.Name(); got != "counting" {
		t.Errorf("Name() = %q after Use, want counting", got)
	}
	y, dw, dg := convStep(t)
	compute.Use(compute.CPU{})

	// Forward: the input, weight and output rounded, the input packed,
	// one product; the norm; LeakyReLU; the pool. Backward: the pool's
	// and LeakyReLU's gradients, the norm's sums and input gradient, the
	// error rounded and packed for the weight gradient, and the input
	// gradient's product unpacked by Col2imBatch.
	for _, k := range []string{"Gemm", "Im2colBatch", "Col2imBatch", "Round", "LeakyReLU", "LeakyReLUBack",
		"NormForward", "NormSums", "NormBackX", "AvgPool", "AvgPoolBack"} {
		if c.calls[k] == 0 {
			t.Errorf("%s not called through the backend (calls: %v)", k, c.calls)
		}
	}
	if c.calls["Gemm"] < 3 {
		t.Errorf("Gemm called %d times, want at least 3 (forward, input and weight gradients)", c.calls["Gemm"])
	}
	t.Logf("calls: %v", c.calls)
	if !slices.Equal(y, wantY) || !slices.Equal(dw, wantDW) || !slices.Equal(dg, wantDG) {
		t.Errorf("results through the counting backend differ from the CPU backend's")
	}
	if got := compute.Name(); got == "counting" {
		t.Errorf("Name() = %q after restoring the CPU backend", got)
	}
}
