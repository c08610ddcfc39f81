package quant_test

import (
	"fmt"

	"github.com/positgan/positgan/quant"
)

// ExampleArithmeticOf shows the arithmetic per-op accumulation uses:
// posits' own, and for other formats the exact result rounded once.
func ExampleArithmeticOf() {
	p := quant.ArithmeticOf(quant.MustParse("posit(8,1)"))
	fmt.Println(p.Add64(1, 1.0/64)) // below half an ulp of 1 (1/16): stays 1
	fmt.Println(p.Mul64(3, 0.1))
	e4m3 := quant.ArithmeticOf(quant.MustParse("fp8-e4m3"))
	fmt.Println(e4m3.Mul64(3, 7)) // 21 ties between 20 and 22: to even
	// Output:
	// 1
	// 0.296875
	// 20
}
