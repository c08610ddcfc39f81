package models_test

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// Build the MNIST CGAN in the posit8+ policy and list the quantized layers
// with the weight format each one got.
func ExampleNew() {
	pol, err := policy.Parse("posit8+")
	if err != nil {
		panic(err)
	}
	cfg, err := models.DefaultConfig(models.CGAN, datasets.Shape{C: 1, H: 28, W: 28}, 10)
	if err != nil {
		panic(err)
	}
	m, err := models.New(cfg)
	if err != nil {
		panic(err)
	}
	groups, err := m.Build(nn.NewScope(gorgonia.NewGraph(), pol.For, 1))
	if err != nil {
		panic(err)
	}
	for _, g := range groups {
		for _, l := range nn.Layers(g.Net) {
			fmt.Println(l, pol.For(l).Weight)
		}
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

// Look a registered model up by the name the CLI and checkpoints use.
func ExampleLookup() {
	s, err := models.Lookup("dcgan")
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Name, s.Labels, s.Domains)
	_, err = models.Lookup("vae")
	fmt.Println(err != nil)
	// Output:
	// dcgan false 1
	// true
}
