package main

import (
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/disintegration/imaging"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

func translateCmd() *command {
	return &command{name: "translate", usage: "--checkpoint C --direction AtoB --in DIR --out DIR [--policy P]",
		summary: "translate a folder of images with a trained image-to-image model (cyclegan)\n\n" +
			"Every image of --in (PNG, JPEG, ...; resized and centre-cropped to the model's size) is\n" +
			"translated by G_AB (--direction AtoB) or G_BA (BtoA) and written to --out under the same\n" +
			"file name. The generator runs in the checkpoint's policy, with its exponent biases, unless\n" +
			"--policy names another; then the same checkpoint also translates in fp32, and PSNR and SSIM\n" +
			"(8-bit images, eval ssim's definition) of each image against its fp32 translation are\n" +
			"printed, then their means, as the posit CycleGAN deployment study measures quality.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			o := translateOptions{}
			fs.StringVar(&o.checkpoint, "checkpoint", "", "checkpoint written by positgan train --model cyclegan (required)")
			fs.StringVar(&o.direction, "direction", "AtoB", "AtoB (G_AB) or BtoA (G_BA)")
			fs.StringVar(&o.in, "in", "", "folder of images to translate (required)")
			fs.StringVar(&o.out, "out", "", "folder to write the translations to (required)")
			fs.StringVar(&o.policy, "policy", "", "run the generator in this policy instead of the checkpoint's, and compare with fp32")
			fs.IntVar(&o.batch, "batch", 16, "images per batch")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return runTranslate(o, io)
			}
		}}
}

type translateOptions struct {
	checkpoint, direction, in, out, policy string
	batch                                  int
}

// translateGroup returns the generator group of a direction.
func translateGroup(direction string) (string, error) {
	switch strings.ToLower(direction) {
	case "atob", "a2b", "ab":
		return models.GroupGAB, nil
	case "btoa", "b2a", "ba":
		return models.GroupGBA, nil
	}
	return "", usagef("--direction %q: want AtoB or BtoA", direction)
}

func runTranslate(o translateOptions, io stdio) error {
	switch {
	case o.checkpoint == "":
		return usagef("missing --checkpoint")
	case o.in == "" || o.out == "":
		return usagef("missing --in or --out")
	case o.batch <= 0:
		return usagef("--batch %d: must be positive", o.batch)
	}
	group, err := translateGroup(o.direction)
	if err != nil {
		return err
	}
	var pol *quant.Policy
	if o.policy != "" {
		if pol, err = quant.ParsePolicy(o.policy); err != nil {
			return usageError{fmt.Errorf("--policy %s: %w", o.policy, err)}
		}
	}
	c, err := ckpt.Load(o.checkpoint)
	if err != nil {
		return err
	}
	cfg, err := models.ConfigOf(c)
	if err != nil {
		return err
	}
	if spec, _ := models.Lookup(cfg.Arch); spec.Domains != 2 {
		return usagef("--checkpoint %s holds a %s model, which does not translate images (want cyclegan)", o.checkpoint, cfg.Arch)
	}
	sh := datasets.Shape{C: cfg.Channels, H: cfg.Height, W: cfg.Width}
	src, names, err := datasets.LoadImages(o.in, datasets.Options{Height: sh.H, Width: sh.W, Channels: sh.C})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	got, err := translateSet(c, pol, group, src, o.batch)
	if err != nil {
		return err
	}
	for i, name := range names {
		img := toImage(got[i*sh.Size():(i+1)*sh.Size()], sh)
		if err := imaging.Save(img, filepath.Join(o.out, name)); err != nil {
			return fmt.Errorf("translate: %w", err)
		}
	}
	if pol == nil {
		fmt.Fprintf(io.out, "translated %d images (%s) into %s\n", len(names), group, o.out)
		return nil
	}
	fp32, err := quant.ParsePolicy("fp32")
	if err != nil {
		return err
	}
	ref, err := translateSet(c, fp32, group, src, o.batch)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.out, "translated %d images (%s) in %s into %s; against the fp32 translation:\n", len(names), group, o.policy, o.out)
	fmt.Fprintf(io.out, "%-24s %10s %8s\n", "image", "PSNR dB", "SSIM")
	var sp, ss float64
	inf := 0
	for i, name := range names {
		a := pixelsOf(got[i*sh.Size():(i+1)*sh.Size()], sh)
		b := pixelsOf(ref[i*sh.Size():(i+1)*sh.Size()], sh)
		p, err := eval.PSNR(a.Pix, b.Pix, 255)
		if err != nil {
			return err
		}
		s, err := eval.SSIM(a, b, 255)
		if err != nil {
			return err
		}
		if math.IsInf(p, 1) {
			inf++
		} else {
			sp += p
		}
		ss += s
		fmt.Fprintf(io.out, "%-24s %10s %8.4f\n", name, evalFormatShort(p), s)
	}
	n := float64(len(names))
	mean := "inf"
	if inf < len(names) {
		mean = fmt.Sprintf("%.2f", sp/float64(len(names)-inf))
	}
	fmt.Fprintf(io.out, "%-24s %10s %8.4f\n", "mean", mean, ss/n)
	if inf > 0 {
		fmt.Fprintf(io.out, "(%d identical images, PSNR inf, left out of the mean PSNR)\n", inf)
	}
	return nil
}

func evalFormatShort(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2f", v)
}

// translateSet returns the translations of every image of src by the
// group's generator of checkpoint c in policy pol (nil: the checkpoint's),
// in values [-1, 1].
func translateSet(c *ckpt.Checkpoint, pol *quant.Policy, group string, src datasets.Dataset, batch int) ([]float32, error) {
	nets, _, err := models.Load(c, pol)
	if err != nil {
		return nil, err
	}
	sh := src.Shape()
	n := src.Len()
	out := make([]float32, n*sh.Size())
	x := make([]float32, batch*sh.Size())
	var a *gan.Applier
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		if a == nil || a.OutSize() != k*sh.Size() {
			if a, err = gan.NewApplier(nets, group, []int{k, sh.C, sh.H, sh.W}); err != nil {
				return nil, err
			}
		}
		for j := range k {
			src.Image(x[j*sh.Size():(j+1)*sh.Size()], i+j)
		}
		if err := a.Apply(out[i*sh.Size():(i+k)*sh.Size()], x[:k*sh.Size()]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// to8 maps a value in [-1, 1] to the 8-bit scale as the sample grids do.
func to8(v float32) uint8 {
	x := math.Round((float64(v) + 1) * 127.5)
	return uint8(max(0, min(255, x)))
}

// pixelsOf returns a (C, H, W) image in [-1, 1] as 8-bit values with
// interleaved channels, as eval reads image files.
func pixelsOf(v []float32, sh datasets.Shape) eval.Pixels {
	p := eval.Pixels{Width: sh.W, Height: sh.H, Channels: sh.C, Pix: make([]float32, sh.Size())}
	plane := sh.H * sh.W
	for c := range sh.C {
		for i := range plane {
			p.Pix[i*sh.C+c] = float32(to8(v[c*plane+i]))
		}
	}
	return p
}

// toImage returns a (C, H, W) image in [-1, 1] as a gray or RGB image.
func toImage(v []float32, sh datasets.Shape) image.Image {
	r := image.Rect(0, 0, sh.W, sh.H)
	plane := sh.H * sh.W
	if sh.C == 1 {
		g := image.NewGray(r)
		for i := range plane {
			g.Pix[i] = to8(v[i])
		}
		return g
	}
	m := image.NewNRGBA(r)
	for i := range plane {
		m.Pix[4*i], m.Pix[4*i+1], m.Pix[4*i+2], m.Pix[4*i+3] = to8(v[i]), to8(v[plane+i]), to8(v[2*plane+i]), 255
	}
	return m
}
