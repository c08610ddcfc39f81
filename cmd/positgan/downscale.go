package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/imageio"
)

func downscaleCmd() *command {
	return &command{name: "downscale", usage: "--scale K IN OUT",
		summary: "shrink an image or a folder of images as MATLAB's imresize(I, 1/K, 'bicubic') does\n\n" +
			"Each image is cropped at the bottom and right to a multiple of K, then shrunk with the\n" +
			"antialiased cubic kernel (a = -0.5, widened K times, mirrored borders) and rounded to 8 bits:\n" +
			"the low-resolution images of super-resolution benchmarks (Set5, Set14, DIV2K's bicubic\n" +
			"track). IN is an image (OUT the file to write) or a folder (OUT a folder; every image is\n" +
			"written under its name with the extension .png).",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			k := fs.Int("scale", 4, "the factor K (2 to 8)")
			return func(args []string, io stdio) error {
				if len(args) != 2 {
					return usagef("want IN and OUT, got %d arguments", len(args))
				}
				if *k < 2 || *k > 8 {
					return usagef("--scale %d: want 2 to 8", *k)
				}
				return runDownscale(args[0], args[1], *k, io)
			}
		}}
}

func runDownscale(in, out string, k int, io stdio) error {
	if samePath(in, out) {
		return usagef("%s and %s are the same: the originals would be overwritten; name another OUT", in, out)
	}
	files, dir, err := eval.ImageFiles(in)
	if err != nil {
		return err
	}
	if !dir {
		img, err := datasets.OpenImage(in)
		if err != nil {
			return err
		}
		lr := datasets.Downscale(img, k)
		if err := imageio.Save(out, lr); err != nil {
			return err
		}
		fmt.Fprintf(io.out, "%s (%dx%d) -> %s (%dx%d)\n", in, img.Bounds().Dx(), img.Bounds().Dy(), out, lr.Rect.Dx(), lr.Rect.Dy())
		return nil
	}
	if len(files) == 0 {
		return fmt.Errorf("no images in %s", in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		img, err := datasets.OpenImage(f)
		if err != nil {
			return err
		}
		n := filepath.Base(f)
		name := strings.TrimSuffix(n, filepath.Ext(n)) + ".png"
		if err := imageio.Save(filepath.Join(out, name), datasets.Downscale(img, k)); err != nil {
			return err
		}
	}
	fmt.Fprintf(io.out, "shrank %s of %s by %d into %s\n", count(len(files), "images"), in, k, out)
	return nil
}
