package models_test

import (
	"fmt"

	"github.com/positgan/positgan/models"
)

func ExampleConfig_Describe() {
	dcgan := models.Config{Arch: "pytorch-dcgan", ZDim: 100, Channels: 3, Height: 64, Width: 64, Features: 64}
	fmt.Println(dcgan.Describe())
	rrdb := models.Config{Arch: "pytorch-rrdbnet", Channels: 3, Height: 32, Width: 32, Features: 64,
		Options: map[string]string{"scale": "4", "blocks": "23"}}
	fmt.Println(rrdb.Describe())
	// Output:
	// pytorch-dcgan: z 100, 3 channels, 64x64, width 64
	// pytorch-rrdbnet: 3 channels, 32x32, width 64, blocks 23, scale 4
}
