package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
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
	g := newPadGeom(s[0]*s[1], s[2], s[3], pad)
	return unary(x, fmt.Sprintf("ReflectionPad2D(%d)", pad), tensor.Shape{s[0], s[1], g.oh, g.ow},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				reflectPad(g, data[float64](y), data[float64](x))
			} else {
				reflectPad(g, data[float32](y), data[float32](x))
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				reflectPadBack(g, data[float64](dx), data[float64](dy))
			} else {
				reflectPadBack(g, data[float32](dx), data[float32](dy))
			}
		})
}

// padGeom is the geometry of a reflection pad: n planes of h×w padded to
// oh×ow; output row i (column j) copies input row rows[i] (column
// cols[j]).
type padGeom struct {
	n, h, w, oh, ow int
	rows, cols      []int
}

func newPadGeom(n, h, w, pad int) padGeom {
	return padGeom{n: n, h: h, w: w, oh: h + 2*pad, ow: w + 2*pad,
		rows: reflectIndex(h, pad), cols: reflectIndex(w, pad)}
}

// reflectIndex returns, for each of the n+2·pad padded positions, the
// input position it copies (pad < n).
func reflectIndex(n, pad int) []int {
	idx := make([]int, n+2*pad)
	for i := range idx {
		j := i - pad
		if j < 0 {
			j = -j
		} else if j >= n {
			j = 2*(n-1) - j
		}
		idx[i] = j
	}
	return idx
}
