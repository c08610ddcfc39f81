package main

import (
	"flag"
	"fmt"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
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
		from, to, err := datasets.DownscaleFile(in, out, k)
		if err != nil {
			return err
		}
		fmt.Fprintf(io.out, "%s (%dx%d) -> %s (%dx%d)\n", in, from.X, from.Y, out, to.X, to.Y)
		return nil
	}
	if len(files) == 0 {
		return fmt.Errorf("no images in %s", in)
	}
	if err := datasets.DownscaleFiles(files, out, k); err != nil {
		return err
	}
	fmt.Fprintf(io.out, "shrank %s of %s by %d into %s\n", count(len(files), "images"), in, k, out)
	return nil
}
