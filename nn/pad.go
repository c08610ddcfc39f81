package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// ReflectionPad2D pads x (batch, C, H, W) by pad pixels on each side of H
// and W with the reflection of the input about its edge pixels, which are
// not repeated: a row 1 2 3 4 padded by 2 is 3 2 1 2 3 4 3 2. It matches
// PyTorch's nn.ReflectionPad2d(pad), and like it needs pad < H and pad < W.
// The backward pass adds the gradient of every padded pixel to the input
// pixel it copies.
func ReflectionPad2D(x *gorgonia.Node, pad int) (*gorgonia.Node, error) {
	s, err := check4D(x, "reflectionpad2d")
	if err != nil {
		return nil, err
	}
	if pad < 0 || pad >= s[2] || pad >= s[3] {
		return nil, fmt.Errorf("nn: reflectionpad2d: padding %d on %dx%d input, want 0 <= pad < H and pad < W", pad, s[2], s[3])
	}
	g := compute.NewReflect(s[0]*s[1], s[2], s[3], pad)
	return unary(x, fmt.Sprintf("ReflectionPad2D(%d)", pad), tensor.Shape{s[0], s[1], g.OH, g.OW},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				compute.ReflectPad(data[float64](y), data[float64](x), g)
			} else {
				compute.ReflectPad(data[float32](y), data[float32](x), g)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.ReflectPadBack(data[float64](dx), data[float64](dy), g)
			} else {
				compute.ReflectPadBack(data[float32](dx), data[float32](dy), g)
			}
		})
}
