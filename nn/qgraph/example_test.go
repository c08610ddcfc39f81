package qgraph_test

import (
	"fmt"
	"log"

	"github.com/positgan/positgan/nn/qgraph"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func ExampleQuantize() {
	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(4), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithBacking([]float32{1.03, 3.3, -0.3, 100}))))
	// Forward: round to posit(8,1). Backward: round the gradient to posit(8,2).
	y, err := qgraph.Quantize(x, quant.MustParse("posit(8,1)"), quant.MustParse("posit(8,2)"), quant.Nearest)
	if err != nil {
		log.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(y.Op(), y.Value().Data())
	// Output: Q(posit(8,1)|∇posit(8,2)) [1 3.25 -0.296875 96]
}

func ExampleMul() {
	pol, err := policy.Parse("posit8")
	if err != nil {
		log.Fatal(err)
	}
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(1, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]float32{1.1, 0.9}))))
	w := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 1), gorgonia.WithName("fc/w"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(2, 1), tensor.WithBacking([]float32{0.3, 0.7}))))
	// x and w are rounded to posit(8,2) (1.125, 0.875; 0.3125, 0.6875),
	// multiplied and summed in float32 (0.953125), and the result rounded
	// to posit(8,2) (0.9375).
	y, err := qgraph.Mul(pol, "fc", x, w)
	if err != nil {
		log.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(y.Value().Data())
	// Output: [0.9375]
}

func ExampleRewrite() {
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	w := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(3, 4), gorgonia.WithName("D/fc1/w"), gorgonia.WithInit(gorgonia.Ones()))
	y, err := gorgonia.Mul(x, w)
	if err != nil {
		log.Fatal(err)
	}
	pol, err := policy.Parse("posit8+")
	if err != nil {
		log.Fatal(err)
	}
	g2, m, err := qgraph.Rewrite(g, pol, []*gorgonia.Node{w})
	if err != nil {
		log.Fatal(err)
	}
	// The copy of y is the output quantizer of layer D/fc1; its input is
	// the product of the quantized x and w.
	fmt.Println(m[y].Op())
	for _, n := range g2.AllNodes() {
		if n.Op() != nil && n.Op().Arity() == 1 {
			fmt.Println(n.Op())
		}
	}
	// Output:
	// Q(posit(8,1,scale=1)|∇posit(8,1))
	// Q(posit(8,1,scale=1)|∇posit(8,1))
	// Q(posit(8,1,scale=4)|∇posit(8,1))
	// Q(posit(8,1,scale=1)|∇posit(8,1))
}
