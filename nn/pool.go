package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// AvgPool2D averages k×k windows of x (batch, C, H, W) moved with the
// given stride, without padding. It replaces gorgonia.AveragePool2D, whose
// backward pass in v0.9.18 sends gradient to the first window only.
func AvgPool2D(x *gorgonia.Node, k, stride int) (*gorgonia.Node, error) {
	s, err := check4D(x, "avgpool2d")
	if err != nil {
		return nil, err
	}
	if k <= 0 || stride <= 0 || k > s[2] || k > s[3] {
		return nil, fmt.Errorf("nn: avgpool2d: kernel %d, stride %d on %dx%d input", k, stride, s[2], s[3])
	}
	g := compute.Pool{N: s[0] * s[1], H: s[2], W: s[3], K: k, S: stride, OH: (s[2]-k)/stride + 1, OW: (s[3]-k)/stride + 1}
	return unary(x, fmt.Sprintf("AvgPool2D(k=%d,s=%d)", k, stride), tensor.Shape{s[0], s[1], g.OH, g.OW},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				compute.AvgPool(data[float64](y), data[float64](x), g)
			} else {
				compute.AvgPool(data[float32](y), data[float32](x), g)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.AvgPoolBack(data[float64](dx), data[float64](dy), g)
			} else {
				compute.AvgPoolBack(data[float32](dx), data[float32](dy), g)
			}
		})
}

// Upsample2D repeats each pixel of x (batch, C, H, W) into a scale×scale
// block (nearest-neighbour upsampling). It does what gorgonia.Upsample2D
// does, a row at a time instead of an element at a time.
func Upsample2D(x *gorgonia.Node, scale int) (*gorgonia.Node, error) {
	s, err := check4D(x, "upsample2d")
	if err != nil {
		return nil, err
	}
	if scale <= 0 {
		return nil, fmt.Errorf("nn: upsample2d: scale %d must be positive", scale)
	}
	g := compute.Upscale{N: s[0] * s[1], H: s[2], W: s[3], S: scale}
	return unary(x, fmt.Sprintf("Upsample2D(%d)", scale), tensor.Shape{s[0], s[1], g.H * scale, g.W * scale},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				compute.Upsample(data[float64](y), data[float64](x), g)
			} else {
				compute.Upsample(data[float32](y), data[float32](x), g)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.UpsampleBack(data[float64](dx), data[float64](dy), g)
			} else {
				compute.UpsampleBack(data[float32](dx), data[float32](dy), g)
			}
		})
}
