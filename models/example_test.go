package models_test

import (
	"fmt"

	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

// Build the MNIST CGAN in the posit8+ policy and list the quantized layers
// with the weight format each one got.
func ExampleNew() {
	pol, err := quant.ParsePolicy("posit8+")
	if err != nil {
		panic(err)
	}
	cfg, err := models.DefaultConfig(models.CGAN, 1, 28, 28, 10)
	if err != nil {
		panic(err)
	}
	m, err := models.New(cfg, pol.For, 1)
	if err != nil {
		panic(err)
	}
	for _, l := range m.Layers() {
		fmt.Println(l, pol.For(l).Weight)
	}
	// Output:
	// G/fc1 posit(8,1,scale=4)
	// G/fc2 posit(8,1,scale=4)
	// G/fc3 posit(8,1,scale=4)
	// G/fc4 posit(8,1,scale=4)
	// G/fc5 posit(8,1,scale=4)
	// D/fc1 posit(8,1,scale=4)
	// D/fc2 posit(8,1,scale=4)
	// D/fc3 posit(8,1,scale=4)
	// D/fc4 posit(8,1,scale=4)
	// D/embed posit(8,1,scale=4)
}
