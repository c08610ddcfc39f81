package gan_test

import (
	"fmt"

	"github.com/positgan/positgan/gan"
)

// Adam's first step moves every parameter by about the learning rate
// against the sign of its gradient, whatever the gradient's size; loss
// scaling (here 1024) is undone before the update.
func ExampleAdam() {
	a := gan.NewAdam([]int{3})
	p := []float32{1, -1, 0.5}
	g := []float32{0.5 * 1024, -2 * 1024, 1e-3 * 1024} // gradients times the loss scale
	a.Step([][]float32{p}, [][]float32{g}, 1024)
	fmt.Printf("%.6f %.6f %.6f (t=%d)\n", p[0], p[1], p[2], a.T)
	// Output: 0.999800 -0.999800 0.499800 (t=1)
}
