package compute_test

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// Round rounds through the Backend in use. posit(8,1)'s spacing is 1/16
// near 1, 1/8 in [2,4) and 1/64 in [1/4,1/2); in [64,128) it has only 64
// and 96.
func ExampleRound() {
	x := []float32{1.03, 3.3, -0.3, 100}
	compute.Round(x, x, quant.MustParse("posit(8,1)"), quant.Nearest, nil)
	fmt.Println(x)
	// Output: [1 3.25 -0.296875 96]
}

// A Rounder with no format copies.
func ExampleRounder_identity() {
	q := compute.NewRounder(nil, quant.Nearest, nil)
	dst := make([]float32, 2)
	q.Round(dst, []float32{0.1, 0.2})
	fmt.Println(dst, q.IsIdentity())
	// Output: [0.1 0.2] true
}
