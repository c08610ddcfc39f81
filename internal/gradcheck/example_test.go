package gradcheck_test

import (
	"fmt"

	"github.com/positgan/positgan/internal/gradcheck"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Check the gradient of sum(tanh(W·x)) with respect to W and x.
func ExampleCheck() {
	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		w := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("W"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{0.1, -0.2, 0.3, 0.4, 0.5, -0.6}))))
		x := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{1, 2, -1}))))
		y, err := gorgonia.Mul(w, x)
		if err != nil {
			return nil, nil, err
		}
		if y, err = gorgonia.Tanh(y); err != nil {
			return nil, nil, err
		}
		loss, err := gorgonia.Sum(y)
		return loss, []*gorgonia.Node{w, x}, err
	}, nil)
	fmt.Println("error:", err)
	// Output: error: <nil>
}
