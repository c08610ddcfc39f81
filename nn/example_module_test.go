package nn_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// Build a small residual network in a scope: every quantized layer gets
// its policy name from the scopes it is built in, and its formats from the
// policy; Share copies the network into another graph over the same
// tensors, where Forward applies it.
func ExampleNewScope() {
	pol, err := policy.Parse("posit8+")
	if err != nil {
		panic(err)
	}
	if err := pol.Apply("G/res1/*:weight=posit(6,1)"); err != nil {
		panic(err)
	}
	s := nn.NewScope(gorgonia.NewGraph(), pol.For, 1).Sub("G")
	r := s.Sub("res1")
	net := nn.Seq(
		s.Conv("in", 1, 4, 3, 1, 1), s.ReLU(),
		nn.Residual(nn.Seq(r.ReflectionPad(1), r.Conv("conv1", 4, 4, 3, 1, 0), r.InstanceNorm("in1", 4), r.ReLU())),
		s.Conv("out", 4, 1, 3, 1, 1), s.Tanh())
	if err := s.Err(); err != nil {
		panic(err)
	}
	for _, l := range nn.Layers(net) {
		fmt.Println(l, pol.For(l).Weight)
	}

	g := gorgonia.NewGraph()
	x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(2, 1, 8, 8), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	y, err := net.Share(g).Forward(nil, x)
	if err != nil {
		panic(err)
	}
	fmt.Println(y.Shape())
	// Output:
	// G/in posit(8,1,scale=4)
	// G/res1/conv1 posit(6,1)
	// G/out posit(8,1,scale=4)
	// (2, 1, 8, 8)
}
