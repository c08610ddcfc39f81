package models

import (
	"fmt"
	"image"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
)

// An ImageMapper is a model whose generators map images to images:
// CycleGAN each way between its domains, ESRGAN low-resolution images to
// their enlargements. It is to those models what gan.Generator is to the
// models that make images from noise: Translate and Upscaler (positgan
// translate and upscale, and the models' evaluations) run a generator
// through the maps the model names, whatever the model.
type ImageMapper interface {
	ImageMaps() []ImageMap
}

// An ImageMap is one way an ImageMapper maps images.
type ImageMap struct {
	Name  string // e.g. "AtoB"
	Group string // the generator's parameter group, e.g. "G_AB"
	// Scale is the side of an output image over the side of its input:
	// 1, or K for x K super-resolution.
	Scale int
}

// MapsOf returns the image maps of the model of configuration c, or nil
// if it does not map images (it is not an ImageMapper).
func MapsOf(c Config) ([]ImageMap, error) {
	m, err := New(c)
	if err != nil {
		return nil, err
	}
	if im, ok := m.(ImageMapper); ok {
		return im.ImageMaps(), nil
	}
	return nil, nil
}

// mapOf returns the map of the loaded model nets whose generator group is
// group, or an error naming the model (arch) if it has none.
func mapOf(nets *gan.Nets, arch, group string) (ImageMap, error) {
	if im, ok := nets.Model.(ImageMapper); ok {
		for _, m := range im.ImageMaps() {
			if m.Group == group {
				return m, nil
			}
		}
	}
	return ImageMap{}, fmt.Errorf("models: the checkpoint holds a %s model, which does not map images by %s", arch, group)
}

// Translate returns the images of every image of src by the generator
// group of one of the image maps of checkpoint c's model (CycleGAN:
// GroupGAB or GroupGBA), run in policy pol (nil: the checkpoint's, with
// its exponent biases), batch images at a time, as (N, C, H, W) values in
// [-1, 1]. An image does not depend on its batch (instance norm).
func Translate(c *ckpt.Checkpoint, pol *policy.Policy, group string, src datasets.Dataset, batch int) ([]float32, error) {
	if batch <= 0 {
		return nil, fmt.Errorf("models: batch %d, want at least 1", batch)
	}
	nets, cfg, err := Load(c, pol)
	if err != nil {
		return nil, err
	}
	if _, err := mapOf(nets, cfg.Arch, group); err != nil {
		return nil, err
	}
	return mapImages(nets, group, src, batch)
}

// mapImages is Translate with the checkpoint's networks loaded, and batch
// at least 1.
func mapImages(nets *gan.Nets, group string, src datasets.Dataset, batch int) ([]float32, error) {
	sh := src.Shape()
	n := src.Len()
	var out []float32
	x := make([]float32, batch*sh.Size())
	var a *gan.Applier
	var err error
	outSize := 0 // values per output image
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		if a == nil || a.OutSize() != k*outSize {
			if a, err = gan.NewApplier(nets, group, []int{k, sh.C, sh.H, sh.W}); err != nil {
				return nil, err
			}
			if out == nil {
				outSize = a.OutSize() / k
				out = make([]float32, n*outSize)
			}
		}
		for j := range k {
			src.Image(x[j*sh.Size():(j+1)*sh.Size()], i+j)
		}
		if err := a.Apply(out[i*outSize:(i+k)*outSize], x[:k*sh.Size()]); err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = []float32{}
	}
	return out, nil
}

// An Upscaler runs the generator of a super-resolution model (an
// ImageMapper with a map of Scale above 1, such as ESRGAN) on whole RGB
// images of any size.
type Upscaler struct {
	nets  *gan.Nets
	group string
	scale int
}

// NewUpscaler loads the enlarging generator of c, run in policy pol (nil:
// the checkpoint's).
func NewUpscaler(c *ckpt.Checkpoint, pol *policy.Policy) (*Upscaler, error) {
	nets, cfg, err := Load(c, pol)
	if err != nil {
		return nil, err
	}
	if im, ok := nets.Model.(ImageMapper); ok {
		for _, m := range im.ImageMaps() {
			if m.Scale > 1 {
				return &Upscaler{nets: nets, group: m.Group, scale: m.Scale}, nil
			}
		}
	}
	return nil, fmt.Errorf("models: the checkpoint holds a %s model, which does not enlarge images (want esrgan)", cfg.Arch)
}

// Scale returns the enlargement factor.
func (u *Upscaler) Scale() int { return u.scale }

// Apply returns lr enlarged by the generator, rounded to 8 bits.
func (u *Upscaler) Apply(lr image.Image) (*image.NRGBA, error) {
	y, err := u.Enlarge(lr)
	if err != nil {
		return nil, err
	}
	b := lr.Bounds()
	return u.Image(y, b.Dy(), b.Dx()), nil
}

// Enlarge returns lr enlarged by the generator as it computes it, before
// any rounding to 8 bits: (1, 3, H·Scale, W·Scale) values in about
// [-1, 1] for an H×W image lr.
func (u *Upscaler) Enlarge(lr image.Image) ([]float32, error) {
	p, h, w := datasets.Planes(lr)
	a, err := gan.NewApplier(u.nets, u.group, []int{1, 3, h, w})
	if err != nil {
		return nil, err
	}
	x := make([]float32, len(p))
	for i, v := range p {
		x[i] = float32(v/127.5 - 1)
	}
	y := make([]float32, a.OutSize())
	if err := a.Apply(y, x); err != nil {
		return nil, err
	}
	return y, nil
}

// Image rounds y, Enlarge's enlargement of an h×w image, to 8 bits, as
// Apply returns it.
func (u *Upscaler) Image(y []float32, h, w int) *image.NRGBA {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = (float64(v) + 1) * 127.5
	}
	return datasets.FromPlanes(out, h*u.scale, w*u.scale)
}
