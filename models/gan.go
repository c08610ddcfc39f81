package models

import (
	"encoding/json"
	"fmt"
	"github.com/positgan/positgan/tanhapprox"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Architectures.
const (
	// CGAN is the multilayer-perceptron conditional GAN used for MNIST
	// (Mirza and Osindero 2014, in the form popularised by the PyTorch-GAN
	// collection): G maps z through hidden layers of F, 2F, 4F, 8F units
	// (LeakyReLU 0.2, batch norm after all but the first) to a tanh image;
	// D maps the image through three hidden layers of 4F units (LeakyReLU
	// 0.2) to one logit. The one-hot label is concatenated to the input of
	// every layer, not only the first, and D adds the projection term
	// ⟨embed(y), h⟩ of its last hidden layer h (Miyato and Koyama, ICLR
	// 2018; the embedding is a quantized layer "D/embed"): both make the
	// networks learn the classes early instead of after several epochs.
	CGAN = "cgan"
	// DCGAN is the deep convolutional GAN of Radford et al. (ICLR 2016):
	// G is a stack of stride-2 transposed convolutions with batch norm and
	// ReLU ending in tanh, D a stack of stride-2 convolutions with batch
	// norm (not on the first) and LeakyReLU 0.2 ending in one logit.
	// Weights start from N(0, 0.02²). Image sides 4·2^k or 7·2^k (28, 32,
	// 64, ...).
	DCGAN = "dcgan"
)

// Config describes a GAN. It is stored in checkpoints as JSON.
type Config struct {
	Arch     string `json:"arch"`
	ZDim     int    `json:"z_dim"`
	Classes  int    `json:"classes"` // conditional on this many classes (CGAN); 0 for DCGAN
	Channels int    `json:"channels"`
	Height   int    `json:"height"`
	Width    int    `json:"width"`
	Features int    `json:"features"` // F: the width unit of both networks
	// Tanh is G's output activation: "" the exact tanh, otherwise an
	// approximation as tanhapprox.Parse reads it ("bitwise-corrected:posit(16,0)",
	// "pwl:3"), from the policy (quant.Policy.Tanh). Its backward pass
	// uses 1-y² at the approximate output y, as the posit GAN work does.
	Tanh string `json:"tanh,omitempty"`
}

// DefaultConfig returns the standard configuration of arch for images of
// the given shape: z of 100 values; CGAN with F = 128 (G 128-256-512-1024,
// D 512-512-512) and the given number of classes; DCGAN with F = 64 for
// 64x64 images and F = 32 for smaller ones.
func DefaultConfig(arch string, channels, height, width, classes int) (Config, error) {
	c := Config{Arch: arch, ZDim: 100, Channels: channels, Height: height, Width: width}
	switch arch {
	case CGAN:
		c.Classes, c.Features = classes, 128
	case DCGAN:
		c.Features = 32
		if height >= 64 {
			c.Features = 64
		}
	}
	return c, c.Check()
}

// Check reports whether the configuration can be built.
func (c Config) Check() error {
	switch {
	case c.ZDim <= 0 || c.Features <= 0:
		return fmt.Errorf("models: %s: z size %d and features %d must be positive", c.Arch, c.ZDim, c.Features)
	case c.Channels != 1 && c.Channels != 3:
		return fmt.Errorf("models: %s: %d channels, want 1 or 3", c.Arch, c.Channels)
	case c.Height <= 0 || c.Width <= 0:
		return fmt.Errorf("models: %s: image size %dx%d must be positive", c.Arch, c.Height, c.Width)
	}
	if c.Tanh != "" {
		if _, err := tanhapprox.Parse(tanhapprox.Tanh, c.Tanh); err != nil {
			return fmt.Errorf("models: output activation: %w", err)
		}
	}
	switch c.Arch {
	case CGAN:
		if c.Classes < 2 {
			return fmt.Errorf("models: cgan needs a labelled data set of at least 2 classes, have %d", c.Classes)
		}
	case DCGAN:
		if c.Classes != 0 {
			return fmt.Errorf("models: dcgan is unconditional: classes must be 0")
		}
		if c.Height != c.Width {
			return fmt.Errorf("models: dcgan needs square images, have %dx%d", c.Height, c.Width)
		}
		if _, _, ok := dcganGeometry(c.Height); !ok {
			return fmt.Errorf("models: dcgan image side %d: want 4·2^k or 7·2^k with k >= 1 (8, 14, 16, 28, 32, 56, 64, ...)", c.Height)
		}
	default:
		return fmt.Errorf("models: unknown architecture %q (want cgan or dcgan)", c.Arch)
	}
	return nil
}

// ImageSize returns the number of values of one image, C·H·W.
func (c Config) ImageSize() int { return c.Channels * c.Height * c.Width }

// ZShape returns the shape of a batch of latent vectors for G.
func (c Config) ZShape(batch int) tensor.Shape {
	if c.Arch == DCGAN {
		return tensor.Shape{batch, c.ZDim, 1, 1}
	}
	return tensor.Shape{batch, c.ZDim}
}

// XShape returns the shape of a batch of images as G makes them and D
// takes them: flat for the MLP CGAN, (B, C, H, W) for DCGAN.
func (c Config) XShape(batch int) tensor.Shape {
	if c.Arch == DCGAN {
		return tensor.Shape{batch, c.Channels, c.Height, c.Width}
	}
	return tensor.Shape{batch, c.ImageSize()}
}

// String returns the configuration as JSON.
func (c Config) String() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// ParseConfig parses the JSON String returns and checks it.
func ParseConfig(s string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("models: config: %w", err)
	}
	return c, c.Check()
}

// GAN is a generator and a discriminator whose parameters live in a graph
// of their own; use Net.Share to build the training graphs over them.
type GAN struct {
	Config Config
	G, D   *Net
}

// New builds the GAN cfg describes with float32 parameters initialised
// from seed, its quantized layers using the formats f gives for their
// names ("G/fc1", "D/conv2", ...; see Layers).
func New(cfg Config, f Formats, seed uint64) (*GAN, error) {
	return build(cfg, f, seed, tensor.Float32)
}

func build(cfg Config, f Formats, seed uint64, dt tensor.Dtype) (*GAN, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	g := gorgonia.NewGraph()
	m := &GAN{Config: cfg}
	var err error
	switch cfg.Arch {
	case CGAN:
		m.G, m.D, err = buildCGAN(g, cfg, f, seed, dt)
	case DCGAN:
		m.G, m.D, err = buildDCGAN(g, cfg, f, seed, dt)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Params returns the parameters of G, then D, in a fixed order.
func (m *GAN) Params() []Param { return append(m.G.Params(), m.D.Params()...) }

// Layers returns the names of the quantized layers, G's then D's.
func (m *GAN) Layers() []string {
	var names []string
	for _, p := range m.Params() {
		if p.Weight {
			names = append(names, p.Layer)
		}
	}
	return names
}

func buildCGAN(g *gorgonia.ExprGraph, c Config, f Formats, seed uint64, dt tensor.Dtype) (G, D *Net, err error) {
	F := c.Features
	b := &builder{g: g, f: f, seed: seed, dt: dt, classes: c.Classes, net: &Net{name: "G", condition: true}}
	in := c.ZDim
	for i, w := range []int{F, 2 * F, 4 * F, 8 * F} {
		name := fmt.Sprintf("fc%d", i+1)
		b.linear(name, in, w)
		if i > 0 {
			b.batchNorm(fmt.Sprintf("bn%d", i+1), w)
		}
		b.act(actLeakyReLU, 0.2)
		in = w
	}
	b.linear("fc5", in, c.ImageSize())
	b.outputTanh(c.Tanh)
	if b.err != nil {
		return nil, nil, b.err
	}
	G = b.net

	b.net = &Net{name: "D", condition: true}
	in = c.ImageSize()
	for i := 0; i < 3; i++ {
		b.linear(fmt.Sprintf("fc%d", i+1), in, 4*F)
		b.act(actLeakyReLU, 0.2)
		in = 4 * F
	}
	b.projection("fc4", "embed", in)
	return G, b.net, b.err
}

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

func buildDCGAN(g *gorgonia.ExprGraph, c Config, f Formats, seed uint64, dt tensor.Dtype) (G, D *Net, err error) {
	base, k, _ := dcganGeometry(c.Height)
	F := c.Features
	b := &builder{g: g, f: f, seed: seed, dt: dt, normStd: 0.02, net: &Net{name: "G"}}
	// G: z (1x1) -> base x base with F·2^(k-1) maps, then k-1 doublings
	// halving the maps, then the last doubling to the image.
	maps := F << (k - 1)
	b.deconv("deconv1", c.ZDim, maps, base, 1, 0, false)
	b.batchNorm("bn1", maps)
	b.act(actReLU, 0)
	for i := 2; i <= k; i++ {
		b.deconv(fmt.Sprintf("deconv%d", i), maps, maps/2, 4, 2, 1, false)
		b.batchNorm(fmt.Sprintf("bn%d", i), maps/2)
		b.act(actReLU, 0)
		maps /= 2
	}
	b.deconv(fmt.Sprintf("deconv%d", k+1), maps, c.Channels, 4, 2, 1, false)
	b.outputTanh(c.Tanh)
	if b.err != nil {
		return nil, nil, b.err
	}
	G = b.net

	b.net = &Net{name: "D"}
	in, maps := c.Channels, F
	for i := 1; i <= k; i++ {
		b.conv(fmt.Sprintf("conv%d", i), in, maps, 4, 2, 1, false)
		if i > 1 {
			b.batchNorm(fmt.Sprintf("bn%d", i), maps)
		}
		b.act(actLeakyReLU, 0.2)
		in, maps = maps, maps*2
	}
	b.conv(fmt.Sprintf("conv%d", k+1), in, 1, base, 1, 0, false)
	return G, b.net, b.err
}
