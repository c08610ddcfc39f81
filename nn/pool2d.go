package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
)

// MaxPool2D is PyTorch's F.max_pool2d(x, k, stride, pad) on x (batch, C,
// H, W): the largest value of each k×k window moved with the given stride
// over the image padded by pad on each side, the padding never winning.
// The gradient goes to the first largest value of each window, as
// PyTorch's does.
func MaxPool2D(x *gorgonia.Node, k, stride, pad int) (*gorgonia.Node, error) {
	g, s, err := padPoolGeom(x, "maxpool2d", k, stride, pad)
	if err != nil {
		return nil, err
	}
	arg := new([]int32) // each output's input index, for the backward pass
	return unary(x, fmt.Sprintf("MaxPool2D[%p](k=%d,s=%d,p=%d)", arg, k, stride, pad), tensor.Shape{s[0], s[1], g.OH, g.OW},
		func(x, y *tensor.Dense) {
			*arg = grow(*arg, y.Size())
			if isF64(x) {
				compute.MaxPool(data[float64](y), *arg, data[float64](x), g)
			} else {
				compute.MaxPool(data[float32](y), *arg, data[float32](x), g)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.MaxPoolBack(data[float64](dx), data[float64](dy), *arg, g)
			} else {
				compute.MaxPoolBack(data[float32](dx), data[float32](dy), *arg, g)
			}
		})
}

// AvgPool2DPad is PyTorch's F.avg_pool2d(x, k, stride, pad,
// count_include_pad=False) on x (batch, C, H, W): each output is the sum
// of the pixels of its k×k window that lie inside the image, divided by
// their number. Unlike AvgPool2D it pads, and it divides rather than
// multiplying by a reciprocal, as PyTorch does.
func AvgPool2DPad(x *gorgonia.Node, k, stride, pad int) (*gorgonia.Node, error) {
	g, s, err := padPoolGeom(x, "avgpool2d", k, stride, pad)
	if err != nil {
		return nil, err
	}
	return unary(x, fmt.Sprintf("AvgPool2DPad(k=%d,s=%d,p=%d)", k, stride, pad), tensor.Shape{s[0], s[1], g.OH, g.OW},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				compute.AvgPoolPad(data[float64](y), data[float64](x), g)
			} else {
				compute.AvgPoolPad(data[float32](y), data[float32](x), g)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.AvgPoolPadBack(data[float64](dx), data[float64](dy), g)
			} else {
				compute.AvgPoolPadBack(data[float32](dx), data[float32](dy), g)
			}
		})
}

// padPoolGeom checks a padded pool's arguments against x and returns its
// geometry and x's shape.
func padPoolGeom(x *gorgonia.Node, what string, k, stride, pad int) (compute.Pool, tensor.Shape, error) {
	s, err := check4D(x, what)
	if err != nil {
		return compute.Pool{}, nil, err
	}
	// PyTorch's limit: a window must hold at least one pixel of the image.
	if k <= 0 || stride <= 0 || pad < 0 || 2*pad > k || k > s[2]+2*pad || k > s[3]+2*pad {
		return compute.Pool{}, nil, fmt.Errorf("nn: %s: kernel %d, stride %d, padding %d on %dx%d input", what, k, stride, pad, s[2], s[3])
	}
	g := compute.Pool{N: s[0] * s[1], H: s[2], W: s[3], K: k, S: stride, Pad: pad,
		OH: (s[2]+2*pad-k)/stride + 1, OW: (s[3]+2*pad-k)/stride + 1}
	return g, s, nil
}
