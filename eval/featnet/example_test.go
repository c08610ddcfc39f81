package featnet_test

import (
	"fmt"

	"github.com/positgan/positgan/eval/featnet"
)

// The shipped LeNet for MNIST: its name goes into the metric's name.
func ExampleLoad() {
	e, err := featnet.Load("lenet-mnist")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Name(), e.Dim(), featnet.MetricName(e))
	// Output: LeNet-MNIST 84 FID (LeNet-MNIST)
}

// Resize matches PyTorch's bilinear interpolation with
// align_corners=False: 2 pixels become 4, the outer ones copies.
func ExampleResize() {
	dst := make([]float32, 4)
	featnet.Resize(dst, []float32{1, 2}, 1, 1, 2, 1, 4)
	fmt.Println(dst)
	// Output: [1 1.25 1.75 2]
}
