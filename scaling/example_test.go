package scaling_test

import (
	"fmt"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

func ExampleChooseBias() {
	// Weights near 2^-5, as GAN weights typically are.
	w := []float32{0.03, -0.05, 0.04, 0.02, -0.035}
	f := quant.MustParse("posit(8,1)")
	k, _ := scaling.ChooseBias(scaling.Log2Histogram(w), f)
	fk, _ := quant.Scale(f, k)
	fmt.Println(k, fk)
	// Output: 4 posit(8,1,scale=4)
}
