package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// PixelShuffle rearranges x (batch, C·r², H, W) into (batch, C, H·r, W·r)
// (depth to space): output pixel (c, h·r+i, w·r+j) is input pixel
// (c·r²+i·r+j, h, w). It matches PyTorch's nn.PixelShuffle(r), the
// upsampling step of ESRGAN-style super-resolution. The backward pass is
// the inverse rearrangement.
func PixelShuffle(x *gorgonia.Node, r int) (*gorgonia.Node, error) {
	s, err := check4D(x, "pixelshuffle")
	if err != nil {
		return nil, err
	}
	if r <= 0 || s[1]%(r*r) != 0 {
		return nil, fmt.Errorf("nn: pixelshuffle: factor %d on %d channels, want a positive r with channels divisible by r²", r, s[1])
	}
	g := shuffleGeom{n: s[0] * s[1] / (r * r), h: s[2], w: s[3], r: r}
	return unary(x, fmt.Sprintf("PixelShuffle(%d)", r), tensor.Shape{s[0], s[1] / (r * r), s[2] * r, s[3] * r},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				shuffle(g, data[float64](y), data[float64](x), false)
			} else {
				shuffle(g, data[float32](y), data[float32](x), false)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				shuffle(g, data[float64](dy), data[float64](dx), true)
			} else {
				shuffle(g, data[float32](dy), data[float32](dx), true)
			}
		})
}

// shuffleGeom is the geometry of a pixel shuffle: n output planes
// (batch·C), each made of r² input planes of h×w.
type shuffleGeom struct{ n, h, w, r int }
