package models

import (
	"fmt"
	"strconv"
	"strings"

	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// DCGANPyTorch is the generator of pytorch/examples' DCGAN (dcgan/main.py),
// imported from its state dict by positgan import --arch dcgan:
//
//	main.0  ConvTranspose2d(nz, 8·ngf, 4, 1, 0, bias=False)   1×1 → 4×4
//	main.1  BatchNorm2d(8·ngf), main.2 ReLU
//	main.3  ConvTranspose2d(8·ngf, 4·ngf, 4, 2, 1, bias=False), main.4 BatchNorm2d, main.5 ReLU
//	main.6  ConvTranspose2d(4·ngf, 2·ngf, 4, 2, 1, bias=False), main.7 BatchNorm2d, main.8 ReLU
//	main.9  ConvTranspose2d(2·ngf, ngf, 4, 2, 1, bias=False),   main.10 BatchNorm2d, main.11 ReLU
//	main.12 ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), main.13 Tanh   → 64×64
//
// with batch norm in evaluation mode (its running statistics). Its layers
// are named as DCGAN's generator at 64×64 (G/deconv1, G/bn1, …, G/deconv5),
// so that policies written for one address the other. It has no
// discriminator: it runs (sample, export, generate, deploy-compare, scale
// histogram) but does not train.
const DCGANPyTorch = "pytorch-dcgan"

func init() {
	Register(Spec{
		Name:    DCGANPyTorch,
		Summary: "pytorch/examples' DCGAN generator, 64x64, imported with positgan import (inference only)",
		Default: func(img datasets.Shape, _ int) Config {
			return Config{ZDim: 100, Channels: img.C, Height: 64, Width: 64, Features: 64}
		},
		Check: func(c Config) error {
			switch {
			case c.ZDim <= 0:
				return fmt.Errorf("models: %s: z size %d must be positive", DCGANPyTorch, c.ZDim)
			case c.Classes != 0:
				return fmt.Errorf("models: %s is unconditional: classes must be 0", DCGANPyTorch)
			case c.Height != 64 || c.Width != 64:
				return fmt.Errorf("models: %s makes 64x64 images, not %dx%d", DCGANPyTorch, c.Height, c.Width)
			case 8*c.Features > MaxFeatures:
				return fmt.Errorf("models: %s: ngf %d: 8·ngf exceeds the limit %d", DCGANPyTorch, c.Features, MaxFeatures)
			}
			return nil
		},
		New: func(c Config) (gan.Model, error) {
			return &dcganPyTorch{imported: imported{name: DCGANPyTorch, trainInstead: DCGAN, discriminators: "a discriminator", group: "G", input: "z"}, cfg: c}, nil
		},
	})
	RegisterTorch(TorchArch{
		Name:    "dcgan",
		Summary: "pytorch/examples' DCGAN generator (main.0 … main.12), 64x64",
		Config:  dcganTorchConfig,
		Key:     dcganTorchKey,
	})
}

// dcganTorchConfig reads nz, ngf and nc from the first and last transposed
// convolutions' weights, (nz, 8·ngf, 4, 4) and (ngf, nc, 4, 4).
func dcganTorchConfig(sd map[string]ckpt.Tensor) (Config, error) {
	first, ok := sd["main.0.weight"]
	if !ok || len(first.Shape) != 4 || first.Shape[1]%8 != 0 || first.Shape[2] != 4 || first.Shape[3] != 4 {
		return Config{}, torchShapeError(sd, "main.0.weight", first, "(nz, 8·ngf, 4, 4)")
	}
	nz, ngf := first.Shape[0], first.Shape[1]/8
	last, ok := sd["main.12.weight"]
	if !ok || len(last.Shape) != 4 || last.Shape[0] != ngf || last.Shape[2] != 4 || last.Shape[3] != 4 {
		return Config{}, torchShapeError(sd, "main.12.weight", last, fmt.Sprintf("(ngf=%d, nc, 4, 4)", ngf))
	}
	return Config{Arch: DCGANPyTorch, ZDim: nz, Channels: last.Shape[1], Height: 64, Width: 64, Features: ngf}, nil
}

// torchShapeError reports a state-dict key that is missing or has a shape
// the network cannot have; want describes the shape expected.
func torchShapeError(sd map[string]ckpt.Tensor, key string, t ckpt.Tensor, want string) error {
	if _, ok := sd[key]; !ok {
		return fmt.Errorf("the state dict has no %q (want a tensor of shape %s)", key, want)
	}
	return fmt.Errorf("%q has shape %s, want %s", key, shapeText(t.Shape), want)
}

// dcganTorchKey maps G/deconvI.w to main.(3(I-1)).weight and G/bnI's
// tensors to main.(3(I-1)+1)'s.
func dcganTorchKey(_ Config, name string) string {
	layer, param, _ := strings.Cut(strings.TrimPrefix(name, "G/"), ".")
	for _, kind := range []struct {
		prefix string
		offset int
	}{{"deconv", 0}, {"bn", 1}} {
		if n, ok := strings.CutPrefix(layer, kind.prefix); ok {
			if i, err := strconv.Atoi(n); err == nil {
				switch param {
				case "w", "gamma":
					param = "weight"
				case "b", "beta":
					param = "bias"
				}
				return fmt.Sprintf("main.%d.%s", 3*(i-1)+kind.offset, param)
			}
		}
	}
	return name
}

type dcganPyTorch struct {
	imported
	cfg Config
}

func (m *dcganPyTorch) Config() string { return m.cfg.String() }

func (m *dcganPyTorch) Generator() gan.GeneratorSpec {
	return gan.GeneratorSpec{Net: "G", Z: []int{m.cfg.ZDim, 1, 1},
		Image: datasets.Shape{C: m.cfg.Channels, H: m.cfg.Height, W: m.cfg.Width}}
}

func (m *dcganPyTorch) Build(s *nn.Scope) ([]gan.Group, error) {
	c := m.cfg
	g := s.Sub("G")
	maps := 8 * c.Features
	gl := []nn.Module{g.ConvTranspose("deconv1", c.ZDim, maps, 4, 1, 0, nn.WithoutBias()), g.BatchNorm("bn1", maps), g.ReLU()}
	for i := 2; i <= 4; i++ {
		gl = append(gl, g.ConvTranspose(fmt.Sprintf("deconv%d", i), maps, maps/2, 4, 2, 1, nn.WithoutBias()),
			g.BatchNorm(fmt.Sprintf("bn%d", i), maps/2), g.ReLU())
		maps /= 2
	}
	gl = append(gl, g.ConvTranspose("deconv5", maps, c.Channels, 4, 2, 1, nn.WithoutBias()))
	out, err := outputTanh(c.Tanh)
	if err != nil {
		return nil, err
	}
	gl = append(gl, g.Other("tanh", out))
	return []gan.Group{{Name: "G", Net: nn.Seq(gl...)}}, nil
}

func (m *dcganPyTorch) Inputs(batch int) []gan.Input {
	return []gan.Input{{Name: "z", Shape: tensor.Shape{batch, m.cfg.ZDim, 1, 1}}}
}
