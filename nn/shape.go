package nn

import (
	"fmt"

	"github.com/positgan/positgan/compute"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Reshape returns a copy of x with the given shape (same number of
// elements). gorgonia.Reshape returns a view of its input, which an
// in-place op downstream can overwrite (Gorgonia issue 511); the copy
// cannot be.
func Reshape(x *gorgonia.Node, shape tensor.Shape) (*gorgonia.Node, error) {
	if shape.TotalSize() != x.Shape().TotalSize() {
		return nil, fmt.Errorf("nn: reshape: cannot reshape %v to %v", x.Shape(), shape)
	}
	cp := func(src, dst *tensor.Dense) {
		if isF64(src) {
			copy(data[float64](dst), data[float64](src))
		} else {
			copy(data[float32](dst), data[float32](src))
		}
	}
	return unary(x, fmt.Sprintf("Reshape(%v)", shape), shape,
		func(x, y *tensor.Dense) { cp(x, y) },
		func(dy, dx *tensor.Dense) { cp(dy, dx) })
}

// SpatialMean returns the mean of x (batch, C, H, W) over H and W, shape
// (batch, C). It replaces gorgonia.Mean(x, 2, 3), which is wrong in tensor
// v0.9.24 (reducing axis 2 of a 4-D tensor gives wrong sums).
func SpatialMean(x *gorgonia.Node) (*gorgonia.Node, error) {
	s, err := check4D(x, "spatialmean")
	if err != nil {
		return nil, err
	}
	n, hw := s[0]*s[1], s[2]*s[3]
	return unary(x, "SpatialMean", tensor.Shape{s[0], s[1]},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				compute.PlaneMean(data[float64](y), data[float64](x), n, hw)
			} else {
				compute.PlaneMean(data[float32](y), data[float32](x), n, hw)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.PlaneMeanBack(data[float64](dx), data[float64](dy), n, hw)
			} else {
				compute.PlaneMeanBack(data[float32](dx), data[float32](dy), n, hw)
			}
		})
}
