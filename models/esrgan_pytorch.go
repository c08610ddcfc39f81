package models

import (
	"fmt"
	"strconv"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// ESRGANPyTorch is the RRDBNet x4 generator of ESRGAN (Wang et al.),
// imported from a state dict by positgan import --arch esrgan, in either
// layout the public weights use:
//
//	BasicSR, Real-ESRGAN           the original ESRGAN repository
//	conv_first                     conv_first
//	body.N.rdbK.convJ              RRDB_trunk.N.RDBK.convJ
//	conv_body                      trunk_conv
//	conv_up1, conv_up2             upconv1, upconv2
//	conv_hr, conv_last             HRconv, conv_last
//
// (N from 0, K 1 to 3, J 1 to 5; every convolution 3×3 with bias). It is
// ESRGAN's generator layer for layer (nearest-neighbour ×2 upsampling
// before conv_up1 and conv_up2, LeakyReLU 0.2 after them and after
// conv_hr), between two affine maps: PyTorch's RRDBNet takes and makes
// pixels in [0, 1], positgan's images are in [-1, 1], so the input is
// mapped by x/2 + 1/2 and the output by 2y − 1 (in float32, outside the
// policy's formats: they stand for the conversion to and from 8-bit
// pixels). upscale runs it on whole images; outputs are clamped only
// when written as 8-bit images. It does not train.
const ESRGANPyTorch = "pytorch-esrgan"

func init() {
	Register(Spec{
		Name:    ESRGANPyTorch,
		Summary: "ESRGAN's RRDBNet x4 (BasicSR or original layout), imported with positgan import (inference only)",
		Default: func(img datasets.Shape, _ int) Config {
			return Config{Channels: 3, Height: 128, Width: 128, Features: 64,
				Options: map[string]string{"blocks": "23", "gc": "32", "layout": "basicsr"}}
		},
		Options: map[string]string{"blocks": "RRDBs (23 in the published models)", "gc": "growth channels of the dense blocks",
			"layout": "the state dict's key layout: basicsr or esrgan (the original repository)"},
		Check: func(c Config) error {
			_, err := newESRGANPyTorch(c)
			return err
		},
		New: func(c Config) (gan.Model, error) { return newESRGANPyTorch(c) },
	})
	RegisterTorch(TorchArch{
		Name:    "esrgan",
		Summary: "ESRGAN's RRDBNet x4, BasicSR/Real-ESRGAN or original ESRGAN keys",
		Config:  esrganTorchConfig,
		Key:     esrganTorchKey,
	})
}

// esrganLayout names the layers of the key layout called name
// ("basicsr" or "esrgan"), by positgan's names; ok is false for another
// name.
func esrganLayout(name string) (names map[string]string, ok bool) {
	switch name {
	case "basicsr":
		return map[string]string{"conv_first": "conv_first", "rrdb": "body.%d.rdb%d.conv%d", "conv_body": "conv_body",
			"conv_up1": "conv_up1", "conv_up2": "conv_up2", "conv_hr": "conv_hr", "conv_last": "conv_last"}, true
	case "esrgan":
		return map[string]string{"conv_first": "conv_first", "rrdb": "RRDB_trunk.%d.RDB%d.conv%d", "conv_body": "trunk_conv",
			"conv_up1": "upconv1", "conv_up2": "upconv2", "conv_hr": "HRconv", "conv_last": "conv_last"}, true
	}
	return nil, false
}

type esrganPyTorch struct {
	imported
	net    *esrgan
	layout string
}

func newESRGANPyTorch(c Config) (*esrganPyTorch, error) {
	m := &esrganPyTorch{imported: imported{name: ESRGANPyTorch, trainInstead: ESRGAN, discriminators: "a discriminator",
		group: GroupG, input: "lr", images: true}, layout: c.Options["layout"]}
	if _, ok := esrganLayout(m.layout); !ok {
		return nil, fmt.Errorf("models: %s: layout %q, want basicsr or esrgan", ESRGANPyTorch, m.layout)
	}
	var err error
	if c.Options["scale"] != "" && c.Options["scale"] != "4" {
		return nil, fmt.Errorf("models: %s: scale %s: only x4 RRDBNets are read", ESRGANPyTorch, c.Options["scale"])
	}
	e := Config{Arch: ESRGAN, Channels: c.Channels, Height: c.Height, Width: c.Width, Features: c.Features,
		Options: map[string]string{"scale": "4", "blocks": "23", "gc": "32"}}
	for _, k := range []string{"blocks", "gc"} {
		if v, ok := c.Options[k]; ok {
			e.Options[k] = v
		}
	}
	if m.net, err = newESRGAN(e); err != nil {
		return nil, fmt.Errorf("models: %s: %w", ESRGANPyTorch, err)
	}
	m.net.cfg = c
	return m, nil
}

// esrganTorchConfig reads the layout from the keys, nf and the channels
// from conv_first.weight (nf, 3, 3, 3), gc from the first dense block's
// first convolution (gc, nf, 3, 3), and the number of RRDBs from the keys.
func esrganTorchConfig(sd map[string]ckpt.Tensor) (Config, error) {
	layout := "basicsr"
	if _, ok := sd["RRDB_trunk.0.RDB1.conv1.weight"]; ok {
		layout = "esrgan"
	} else if _, ok := sd["trunk_conv.weight"]; ok {
		layout = "esrgan"
	}
	names, _ := esrganLayout(layout)
	first, ok := sd["conv_first.weight"]
	if !ok || len(first.Shape) != 4 || first.Shape[1] != 3 || first.Shape[2] != 3 || first.Shape[3] != 3 {
		return Config{}, torchShapeError(sd, "conv_first.weight", first, "(nf, 3, 3, 3)")
	}
	nf := first.Shape[0]
	k := fmt.Sprintf(names["rrdb"], 0, 1, 1) + ".weight"
	dense, ok := sd[k]
	if !ok || len(dense.Shape) != 4 || dense.Shape[1] != nf {
		return Config{}, torchShapeError(sd, k, dense, fmt.Sprintf("(gc, nf=%d, 3, 3)", nf))
	}
	n := 0
	for {
		if _, ok := sd[fmt.Sprintf(names["rrdb"], n, 1, 1)+".weight"]; !ok {
			break
		}
		n++
	}
	return Config{Arch: ESRGANPyTorch, Channels: 3, Height: 128, Width: 128, Features: nf,
		Options: map[string]string{"blocks": strconv.Itoa(n), "gc": strconv.Itoa(dense.Shape[0]), "layout": layout}}, nil
}

// esrganTorchKey maps ESRGAN's generator names (G/conv_first.w,
// G/rrdbI/rdbK/convJ.b, …) to the layout's keys.
func esrganTorchKey(c Config, name string) string {
	names, ok := esrganLayout(c.Options["layout"])
	rest, ok2 := strings.CutPrefix(name, GroupG+"/")
	if !ok || !ok2 {
		return name
	}
	layer, param, _ := strings.Cut(rest, ".")
	switch param {
	case "w":
		param = "weight"
	case "b":
		param = "bias"
	}
	if l, ok := names[layer]; ok {
		return l + "." + param
	}
	var i, k, j int
	if n, err := fmt.Sscanf(layer, "rrdb%d/rdb%d/conv%d", &i, &k, &j); err == nil && n == 3 {
		return fmt.Sprintf(names["rrdb"], i-1, k, j) + "." + param
	}
	return name
}

func (m *esrganPyTorch) Config() string { return m.net.cfg.String() }

func (m *esrganPyTorch) ImageMaps() []ImageMap {
	return []ImageMap{{Name: "upscale", Group: GroupG, Scale: 4}}
}

// affine returns x·a + b as a module, in float32.
func affine(name string, a, b float32) nn.Module {
	return nn.Func(name, func(x *gorgonia.Node) (*gorgonia.Node, error) {
		y, err := nn.Scale(x, float64(a))
		if err != nil {
			return nil, err
		}
		return gorgonia.Add(y, gorgonia.NewConstant(b))
	})
}

func (m *esrganPyTorch) Build(s *nn.Scope) ([]gan.Group, error) {
	g := nn.Seq(affine("ToUnitRange", 0.5, 0.5), m.net.generator(s.Sub(GroupG)), affine("FromUnitRange", 2, -1))
	return []gan.Group{{Name: GroupG, Net: g}}, nil
}

func (m *esrganPyTorch) Inputs(batch int) []gan.Input {
	c, s := m.net.cfg, m.net.lrSide()
	return []gan.Input{{Name: "lr", Shape: tensor.Shape{batch, c.Channels, s, s}}}
}
