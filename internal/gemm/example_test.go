package gemm_test

import (
	"fmt"

	"github.com/positgan/positgan/internal/gemm"
)

// Exact accumulation keeps what float summation loses: 2^60 + 1 - 2^60.
func ExampleQuireGemm() {
	a := []float32{0x1p30, 1, -0x1p30}
	b := []float32{0x1p30, 1, 0x1p30}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	fmt.Println("float32:", s)
	c := make([]float32, 1)
	gemm.QuireGemm(nil, false, false, 1, 1, 3, a, 3, b, 1, c, 1)
	fmt.Println("quire:", c[0])
	// Output:
	// float32: 0
	// quire: 1
}
