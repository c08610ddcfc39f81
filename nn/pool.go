package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
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
	g := poolGeom{n: s[0] * s[1], h: s[2], w: s[3], k: k, s: stride, oh: (s[2]-k)/stride + 1, ow: (s[3]-k)/stride + 1}
	return unary(x, fmt.Sprintf("AvgPool2D(k=%d,s=%d)", k, stride), tensor.Shape{s[0], s[1], g.oh, g.ow},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				avgPool(g, data[float64](y), data[float64](x))
			} else {
				avgPool(g, data[float32](y), data[float32](x))
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				avgPoolBack(g, data[float64](dx), data[float64](dy))
			} else {
				avgPoolBack(g, data[float32](dx), data[float32](dy))
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
	n, h, w := s[0]*s[1], s[2], s[3]
	return unary(x, fmt.Sprintf("Upsample2D(%d)", scale), tensor.Shape{s[0], s[1], h * scale, w * scale},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				upsample(data[float64](y), data[float64](x), n, h, w, scale)
			} else {
				upsample(data[float32](y), data[float32](x), n, h, w, scale)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				upsampleBack(data[float64](dx), data[float64](dy), n, h, w, scale)
			} else {
				upsampleBack(data[float32](dx), data[float32](dy), n, h, w, scale)
			}
		})
}
