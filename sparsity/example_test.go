package sparsity_test

import (
	"fmt"

	"github.com/positgan/positgan/sparsity"
)

func ExampleParse() {
	p, _ := sparsity.Parse("2:4")
	fmt.Println(p, p.N, p.M, p.Density())
	d, _ := sparsity.Parse("dense")
	fmt.Println(d, d.IsDense())
	// Output:
	// 2:4 2 4 0.5
	// dense true
}

// A 2×6 weight matrix (Out × In) masked 2:4 along its rows, the reduction
// dimension of y = W·x: each row's first block keeps its two largest
// magnitudes, the partial block of two keeps both.
func ExampleMaskValues() {
	w := []float32{
		0.1, -0.9, 0.5, 0.2, 0.3, -0.4,
		1, 1, -1, 1, 0, 7,
	}
	keep := make([]bool, len(w))
	abs, _ := sparsity.Lookup("abs")
	sparsity.MaskValues(keep, w, 2, 6, sparsity.Pattern{N: 2, M: 4}, sparsity.AlongRow, abs, sparsity.Key{}, nil)
	fmt.Println(sparsity.Apply(w, w, keep))
	fmt.Println(sparsity.Kept(keep), "of", len(w), "kept")
	// Output:
	// [0 -0.9 0.5 0 0.3 -0.4 1 1 0 0 0 7]
	// 8 of 12 kept
}
