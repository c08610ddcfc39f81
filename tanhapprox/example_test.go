package tanhapprox_test

import (
	"fmt"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/tanhapprox"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The sigmoid of 1 in posit(8,0): code 0x40, XOR 0x80 is 0xc0, shifted
// right by 2 is 0x30, which is 48/64 = 0.75 (sigmoid(1) = 0.731).
func ExampleBitwise_SigmoidCode() {
	p, _ := quant.NewPosit(8, 0)
	b, _ := tanhapprox.NewBitwise(tanhapprox.Sigmoid, p)
	c := b.SigmoidCode(0x40)
	fmt.Printf("%#x %g\n", c, p.Decode(c))
	// Output: 0x30 0.75
}

// tanh(2) in posit(16,0): 2x = 4 is code 0x7000; XOR 0x8000 and shift by
// 2 give 0x3c00 = 15360, s = 15360/16384 = 0.9375, R = 2s-1 = 0.875. The
// correction adds δ because 0.875 > θ.
func ExampleNewCorrectedTanh() {
	p, _ := quant.NewPosit(16, 0)
	plain, _ := tanhapprox.NewBitwise(tanhapprox.Tanh, p)
	corr, _ := tanhapprox.NewCorrectedTanh(p, tanhapprox.DefaultTheta, tanhapprox.DefaultDelta)
	fmt.Printf("%.5f %.5f\n", plain.At(2), corr.At(2))
	// Output: 0.87500 0.94295
}

// The best hard tanh: min(m·x, L) for x >= 0. Its error is 1-L in the
// tail, and the same at the tangent point t where tanh'(t) = m.
func ExampleNewPWL() {
	p, _ := tanhapprox.NewPWL(tanhapprox.Tanh, 2)
	xs, ys := p.Breakpoints()
	fmt.Printf("slope %.4f, clipped at %.4f from x = %.4f, error %.4f\n",
		p.Slope(0), ys[1], xs[1], p.MaxError())
	// Output: slope 0.7607, clipped at 0.9178 from x = 1.2065, error 0.0822
}

// Activation replaces gorgonia.Tanh in a graph: here the bitwise
// posit(16,0) tanh of 0, 1 and 2 (1: 2x = 2 is code 0x6000, whose
// sigmoid code 0x3800 is 0.875, so R = 0.75).
func ExampleActivation() {
	p, _ := quant.NewPosit(16, 0)
	b, _ := tanhapprox.NewBitwise(tanhapprox.Tanh, p)
	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithBacking([]float32{0, 1, 2}))))
	y, err := tanhapprox.Activation(x, b, tanhapprox.GradAtOutput)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(y.Value().Data())
	// Output: [0 0.75 0.875]
}
