package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
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
	g := compute.Shuffle{N: s[0] * s[1] / (r * r), H: s[2], W: s[3], R: r}
	return unary(x, fmt.Sprintf("PixelShuffle(%d)", r), tensor.Shape{s[0], s[1] / (r * r), s[2] * r, s[3] * r},
		func(x, y *tensor.Dense) {
			if isF64(x) {
				compute.PixelShuffle(data[float64](y), data[float64](x), g)
			} else {
				compute.PixelShuffle(data[float32](y), data[float32](x), g)
			}
		},
		func(dy, dx *tensor.Dense) {
			if isF64(dy) {
				compute.PixelShuffleBack(data[float64](dx), data[float64](dy), g)
			} else {
				compute.PixelShuffleBack(data[float32](dx), data[float32](dy), g)
			}
		})
}
