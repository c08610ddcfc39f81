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

// CycleGANPyTorch is the ResnetGenerator of junyanz/pytorch-CycleGAN-and-
// pix2pix (resnet_6blocks, resnet_9blocks, norm "instance": every
// convolution with bias, InstanceNorm2d without affine parameters or
// running statistics, no dropout), imported from one generator's state
// dict (latest_net_G_A.pth, say) by positgan import --arch cyclegan:
//
//	model.1           ReflectionPad2d(3), Conv2d(nc, ngf, 7), InstanceNorm, ReLU
//	model.4, model.7  Conv2d(3, stride 2, padding 1) to 2·ngf, 4·ngf, InstanceNorm, ReLU
//	model.10 …        n residual blocks: conv_block.1 and conv_block.5, 3×3 after ReflectionPad2d(1)
//	model.10+n, +3    ConvTranspose2d(3, stride 2, padding 1, output_padding 1), InstanceNorm, ReLU
//	model.17+n        ReflectionPad2d(3), Conv2d(ngf, nc, 7), Tanh
//
// It is CycleGAN's generator G_AB, layer for layer (so policies written
// for one address the other), alone: translate --direction AtoB runs it,
// on images in [-1, 1] as the repository's Normalize(0.5, 0.5) makes
// them. Its image size (Height, Width; 256 by default, the repository's
// crop) is the size translate resizes images to; the network takes any
// size divisible by 4. It does not train.
const CycleGANPyTorch = "pytorch-cyclegan"

func init() {
	Register(Spec{
		Name:    CycleGANPyTorch,
		Summary: "pytorch-CycleGAN-and-pix2pix's ResnetGenerator, imported with positgan import (inference only)",
		Default: func(img datasets.Shape, _ int) Config {
			return Config{Channels: img.C, Height: 256, Width: 256, Features: 64, Options: map[string]string{"blocks": "9"}}
		},
		Options: map[string]string{"blocks": "residual blocks (resnet_6blocks: 6, resnet_9blocks: 9)"},
		Check: func(c Config) error {
			b, err := c.Int("blocks", 9)
			switch {
			case err != nil:
				return err
			case b < 0 || b > 64:
				return fmt.Errorf("models: %s: %d blocks, want 0 to 64", CycleGANPyTorch, b)
			case c.Classes != 0 || c.ZDim != 0:
				return fmt.Errorf("models: %s maps images: classes and z size must be 0", CycleGANPyTorch)
			case c.Height%4 != 0 || c.Width%4 != 0:
				return fmt.Errorf("models: %s: image size %dx%d: height and width must be multiples of 4", CycleGANPyTorch, c.Height, c.Width)
			case 4*c.Features > MaxFeatures:
				return fmt.Errorf("models: %s: ngf %d: 4·ngf exceeds the limit %d", CycleGANPyTorch, c.Features, MaxFeatures)
			}
			return nil
		},
		New: func(c Config) (gan.Model, error) {
			b, err := c.Int("blocks", 9)
			if err != nil {
				return nil, err
			}
			return &cycleganPyTorch{imported: imported{name: CycleGANPyTorch, trainInstead: CycleGAN, discriminators: "discriminators",
				group: GroupGAB, input: "x", images: true, feedsData: true}, cfg: c, blocks: b}, nil
		},
	})
	RegisterTorch(TorchArch{
		Name:    "cyclegan",
		Summary: "pytorch-CycleGAN-and-pix2pix's ResnetGenerator (model.1 … model.26 for 9 blocks), any number of blocks",
		Config:  cycleganTorchConfig,
		Key:     cycleganTorchKey,
		// Checkpoints saved before PyTorch 0.4 hold running statistics
		// of the instance norms, which the repository drops on loading
		// (__patch_instance_norm_state_dict): they are never used.
		Ignore: func(key string) bool {
			return strings.HasSuffix(key, ".running_mean") || strings.HasSuffix(key, ".running_var")
		},
	})
}

// cycleganTorchConfig reads ngf and nc from model.1.weight, (ngf, nc, 7, 7),
// and the number of residual blocks from the keys model.N.conv_block.1.weight.
func cycleganTorchConfig(sd map[string]ckpt.Tensor) (Config, error) {
	first, ok := sd["model.1.weight"]
	if !ok || len(first.Shape) != 4 || first.Shape[2] != 7 || first.Shape[3] != 7 {
		return Config{}, torchShapeError(sd, "model.1.weight", first, "(ngf, nc, 7, 7)")
	}
	ngf, nc := first.Shape[0], first.Shape[1]
	n := 0
	for {
		if _, ok := sd[fmt.Sprintf("model.%d.conv_block.1.weight", 10+n)]; !ok {
			break
		}
		n++
	}
	out := fmt.Sprintf("model.%d.weight", 17+n)
	last, ok := sd[out]
	if !ok || len(last.Shape) != 4 || last.Shape[0] != nc || last.Shape[1] != ngf {
		return Config{}, torchShapeError(sd, out, last, fmt.Sprintf("(nc=%d, ngf=%d, 7, 7): positgan runs generators whose input and output have the same channels", nc, ngf))
	}
	return Config{Arch: CycleGANPyTorch, Channels: nc, Height: 256, Width: 256, Features: ngf,
		Options: map[string]string{"blocks": strconv.Itoa(n)}}, nil
}

// cycleganTorchKey maps the names of CycleGAN's G_AB layers to the
// ResnetGenerator's keys (see CycleGANPyTorch): in is model.1, downI
// model.(1+3I), resI/convJ model.(9+I).conv_block.(1 or 5), upI
// model.(7+n+3I), out model.(17+n) for n blocks.
func cycleganTorchKey(c Config, name string) string {
	blocks, _ := c.Int("blocks", 9) // checked by Config.Check
	rest, ok := strings.CutPrefix(name, GroupGAB+"/")
	if !ok {
		return name
	}
	layer, param, _ := strings.Cut(rest, ".")
	switch param {
	case "w":
		param = "weight"
	case "b":
		param = "bias"
	}
	var idx int
	switch {
	case layer == "in":
		idx = 1
	case layer == "out":
		idx = 17 + blocks
	case strings.HasPrefix(layer, "down"):
		i, _ := strconv.Atoi(layer[len("down"):])
		idx = 1 + 3*i
	case strings.HasPrefix(layer, "up"):
		i, _ := strconv.Atoi(layer[len("up"):])
		idx = 10 + blocks + 3*(i-1)
	case strings.HasPrefix(layer, "res"):
		block, conv, _ := strings.Cut(layer[len("res"):], "/conv")
		i, _ := strconv.Atoi(block)
		sub := 1
		if conv == "2" {
			sub = 5
		}
		return fmt.Sprintf("model.%d.conv_block.%d.%s", 9+i, sub, param)
	default:
		return name
	}
	return fmt.Sprintf("model.%d.%s", idx, param)
}

type cycleganPyTorch struct {
	imported
	cfg    Config
	blocks int
}

func (m *cycleganPyTorch) Config() string { return m.cfg.String() }

func (m *cycleganPyTorch) ImageMaps() []ImageMap {
	return []ImageMap{{Name: AtoB, Group: GroupGAB, Scale: 1}}
}

func (m *cycleganPyTorch) Build(s *nn.Scope) ([]gan.Group, error) {
	g, err := (&cycleGAN{cfg: m.cfg, blocks: m.blocks}).generator(s.Sub(GroupGAB))
	if err != nil {
		return nil, err
	}
	return []gan.Group{{Name: GroupGAB, Net: g}}, nil
}

func (m *cycleganPyTorch) Inputs(batch int) []gan.Input {
	return []gan.Input{{Name: "x", Shape: tensor.Shape{batch, m.cfg.Channels, m.cfg.Height, m.cfg.Width}}}
}
