package models

import (
	"fmt"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// DCGAN is the deep convolutional GAN of Radford et al. (ICLR 2016): G is
// a stack of stride-2 transposed convolutions with batch norm and ReLU
// ending in tanh, D a stack of stride-2 convolutions with batch norm (not
// on the first) and LeakyReLU 0.2 ending in one logit. Weights start from
// N(0, 0.02²). Square images of side 4·2^k or 7·2^k (28, 32, 64, ...).
const DCGAN = "dcgan"

func init() {
	Register(Spec{
		Name:    DCGAN,
		Summary: "deep convolutional GAN (Radford et al.), square images of side 4·2^k or 7·2^k",
		Options: map[string]string{"g_features": "the generator's width unit (default: features, the discriminator's)"},
		Default: func(img datasets.Shape, _ int) Config {
			c := Config{ZDim: 100, Channels: img.C, Height: img.H, Width: img.W, Features: 32}
			if img.H >= 64 {
				c.Features = 64
			}
			return c
		},
		Check: func(c Config) error {
			switch {
			case c.ZDim <= 0:
				return fmt.Errorf("models: dcgan: z size %d must be positive", c.ZDim)
			case c.Classes != 0:
				return fmt.Errorf("models: dcgan is unconditional: classes must be 0")
			case c.Height != c.Width:
				return fmt.Errorf("models: dcgan needs square images, have %dx%d", c.Height, c.Width)
			}
			if gf, err := c.Int("g_features", c.Features); err != nil {
				return err
			} else if gf <= 0 || gf > MaxFeatures {
				return fmt.Errorf("models: dcgan: g_features %d must be in [1, %d]", gf, MaxFeatures)
			}
			if _, _, ok := dcganGeometry(c.Height); !ok {
				return fmt.Errorf("models: dcgan image side %d: want 4·2^k or 7·2^k with k >= 1 (8, 14, 16, 28, 32, 56, 64, ...)", c.Height)
			}
			return nil
		},
		New: func(c Config) (gan.Model, error) {
			return &dcgan{noiseGAN{cfg: c, zShape: []int{c.ZDim, 1, 1}, xShape: []int{c.Channels, c.Height, c.Width}}}, nil
		},
	})
}

type dcgan struct{ noiseGAN }

// dcganGeometry returns the base side (4 or 7) and the number k of
// stride-2 layers with side = base·2^k.
func dcganGeometry(side int) (base, k int, ok bool) {
	for _, base := range []int{4, 7} {
		for k := 1; base<<k <= side; k++ {
			if base<<k == side {
				return base, k, true
			}
		}
	}
	return 0, 0, false
}

func (m *dcgan) Build(s *nn.Scope) ([]gan.Group, error) {
	c := m.cfg
	base, k, _ := dcganGeometry(c.Height)
	F := c.Features
	gF, err := c.Int("g_features", F)
	if err != nil {
		return nil, err
	}
	s = s.With(nn.WithNormalInit(0.02))
	// G: z (1x1) -> base x base with F·2^(k-1) maps, then k-1 doublings
	// halving the maps, then the last doubling to the image. G's width
	// unit may differ from D's (g_features).
	g := s.Sub("G")
	maps := gF << (k - 1)
	gl := []nn.Module{g.ConvTranspose("deconv1", c.ZDim, maps, base, 1, 0, nn.WithoutBias()), g.BatchNorm("bn1", maps), g.ReLU()}
	for i := 2; i <= k; i++ {
		gl = append(gl, g.ConvTranspose(fmt.Sprintf("deconv%d", i), maps, maps/2, 4, 2, 1, nn.WithoutBias()),
			g.BatchNorm(fmt.Sprintf("bn%d", i), maps/2), g.ReLU())
		maps /= 2
	}
	gl = append(gl, g.ConvTranspose(fmt.Sprintf("deconv%d", k+1), maps, c.Channels, 4, 2, 1, nn.WithoutBias()))
	out, err := outputTanh(c.Tanh)
	if err != nil {
		return nil, err
	}
	gl = append(gl, g.Other("tanh", out))

	d := s.Sub("D")
	var dl []nn.Module
	in, maps := c.Channels, F
	for i := 1; i <= k; i++ {
		dl = append(dl, d.Conv(fmt.Sprintf("conv%d", i), in, maps, 4, 2, 1, nn.WithoutBias()))
		if i > 1 {
			dl = append(dl, d.BatchNorm(fmt.Sprintf("bn%d", i), maps))
		}
		dl = append(dl, d.LeakyReLU(0.2))
		in, maps = maps, maps*2
	}
	dl = append(dl, d.Conv(fmt.Sprintf("conv%d", k+1), in, 1, base, 1, 0, nn.WithoutBias()))
	return []gan.Group{{Name: "G", Net: nn.Seq(gl...)}, {Name: "D", Net: nn.Seq(dl...)}}, nil
}
