package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

func upscaleCmd() *command {
	return &command{name: "upscale", usage: "--checkpoint C [--in DIR] --out DIR [--policy P] [--lr] [--tile T [--tile-pad P]]",
		summary: "super-resolve images with a trained esrgan and measure them as SR papers do\n\n" +
			"Each image of --in (a folder or one image; default: the held-out photographs of sr-photos,\n" +
			"butterfly and baboon) is taken as ground truth: cropped to a multiple of the scale K, shrunk\n" +
			"with MATLAB's bicubic imresize (as positgan downscale), and enlarged again by the generator\n" +
			"and, as the baseline, by bicubic imresize. Writes <name>_sr.png, <name>_bicubic.png and\n" +
			"<name>_lr.png to --out and prints, per image and as means, Y-PSNR (BT.601 luma of the 8-bit\n" +
			"images, K pixels shaved from each border), RGB PSNR (same shave) and SSIM (eval ssim's, on\n" +
			"the shaved RGB images). With --lr the inputs are already low-resolution: only <name>_sr.png\n" +
			"is written. The generator runs in the checkpoint's policy unless --policy names another.\n" +
			"--compare FILE also writes a crop comparison as SR papers show it: one row per image, a\n" +
			"square of --crop HR pixels at its centre shown as LR (pixel repetition) | bicubic | SR | HR,\n" +
			"each enlarged --zoom times, with each method's Y-PSNR on the whole image in its caption.\n" +
			"--tile T enlarges large images a tile of TxT input pixels at a time, each with --tile-pad P\n" +
			"pixels of context on every side (as Real-ESRGAN's --tile and --tile_pad): memory then grows\n" +
			"with the tile, not the image. With P at least the generator's receptive radius (15 per RRDB\n" +
			"plus 4: 349 for the published 23-block RRDBNet) the output is the untiled one to the bit;\n" +
			"a smaller P (Real-ESRGAN's default is 10) changes pixels near the tiles' seams.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			o := upscaleOptions{}
			fs.StringVar(&o.checkpoint, "checkpoint", "", "checkpoint written by positgan train --model esrgan (required)")
			fs.StringVar(&o.in, "in", datasets.SRPhotos, "folder or image of ground truth (or low-resolution with --lr); sr-photos: its held-out images")
			fs.StringVar(&o.out, "out", "", "folder to write the images to (required)")
			fs.StringVar(&o.policySpec, "policy", "", "run the generator in this policy instead of the checkpoint's")
			fs.BoolVar(&o.lr, "lr", false, "the inputs are low-resolution images: only enlarge them")
			fs.StringVar(&o.compare, "compare", "", "also write a crop comparison PNG (LR | bicubic | SR | HR per image) to this file")
			fs.IntVar(&o.crop, "crop", 96, "side in HR pixels of the centre crops of --compare")
			fs.IntVar(&o.zoom, "zoom", 2, "enlarge the crops of --compare this many times (pixel repetition)")
			fs.StringVar(&o.npy, "npy", "", npyUsage+"; the images must be of one size")
			fs.IntVar(&o.tiling.Tile, "tile", 0, "enlarge tiles of this many input pixels square one at a time (0: whole images)")
			fs.IntVar(&o.tiling.Pad, "tile-pad", 10, "input pixels of context around each tile of --tile")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return runUpscale(o, io)
			}
		}}
}

type upscaleOptions struct {
	checkpoint, in, out, policySpec, compare string
	npy                                      string
	lr                                       bool
	crop, zoom                               int
	tiling                                   models.Tiling
}

// newUpscaler loads the generator of an esrgan checkpoint, in the policy
// named (empty: the checkpoint's).
func newUpscaler(checkpoint, policySpec string) (*models.Upscaler, error) {
	var pol *policy.Policy
	if policySpec != "" {
		var err error
		if pol, err = policy.Parse(policySpec); err != nil {
			return nil, usageError{fmt.Errorf("--policy: %w", err)}
		}
	}
	return experiment.LoadUpscaler(checkpoint, pol)
}

func runUpscale(o upscaleOptions, io stdio) error {
	switch {
	case o.checkpoint == "":
		return usagef("missing --checkpoint")
	case o.out == "":
		return usagef("missing --out")
	case o.compare != "" && o.lr:
		return usagef("--compare needs the ground truth: it excludes --lr")
	case o.compare != "" && !hasExt(o.compare, ".png"):
		return extError("compare", o.compare, ".png")
	case o.crop < 1:
		return usagef("--crop %d: must be positive", o.crop)
	case o.zoom < 1 || o.zoom > 16:
		return usagef("--zoom %d: want 1 to 16", o.zoom)
	case o.tiling.Tile < 0:
		return usagef("--tile %d: want 0 (whole images) or a side in pixels", o.tiling.Tile)
	case o.tiling.Pad < 0:
		return usagef("--tile-pad %d: want 0 or more pixels", o.tiling.Pad)
	}
	if err := checkNPY("npy", o.npy); err != nil {
		return err
	}
	stack := &experiment.NPYStack{Path: o.npy}
	files, err := experiment.UpscaleInputs(o.in)
	if err != nil {
		return err
	}
	u, err := newUpscaler(o.checkpoint, o.policySpec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	k := u.Scale()
	if !o.lr {
		fmt.Fprintf(io.out, "x%d super-resolution of %s (Y-PSNR and PSNR in dB with %d pixels shaved; SSIM on RGB)\n", k, count(len(files), "images"), k)
		fmt.Fprintf(io.out, "%-20s %-8s %8s %8s %8s\n", "image", "method", "Y-PSNR", "PSNR", "SSIM")
	}
	var scores [2][]models.SRScores // bicubic, esrgan
	var rows []models.CropRow
	label := "esrgan"
	if o.policySpec != "" {
		label += " " + o.policySpec
	}
	err = experiment.UpscaleFiles(u, files, o.out, experiment.UpscaleOptions{Tiling: o.tiling, LR: o.lr, NPY: stack}, func(r *experiment.Upscaled) {
		if o.lr {
			return
		}
		for i, s := range []models.SRScores{r.Bicubic, r.Model} {
			fmt.Fprintf(io.out, "%-20s %-8s %8.2f %8.2f %8.4f\n", r.Name, []string{"bicubic", "esrgan"}[i], s.YPSNR, s.PSNR, s.SSIM)
			scores[i] = append(scores[i], s)
		}
		rows = append(rows, r.CropRow(label))
	})
	if ne := (*experiment.NPYShapeError)(nil); errors.As(err, &ne) {
		return usageError{fmt.Errorf("--npy %w", err)}
	} else if err != nil {
		return err
	}
	if w, err := stack.Write(); err != nil {
		return err
	} else if w != "" {
		fmt.Fprintf(io.out, "wrote %s\n", w)
	}
	if o.lr {
		fmt.Fprintf(io.out, "enlarged %s by %d into %s\n", count(len(files), "images"), k, o.out)
		return nil
	}
	for i, ss := range scores {
		m := models.MeanSRScores(ss)
		fmt.Fprintf(io.out, "%-20s %-8s %8.2f %8.2f %8.4f\n", "mean", []string{"bicubic", "esrgan"}[i], m.YPSNR, m.PSNR, m.SSIM)
	}
	if o.compare != "" {
		crop, err := experiment.WriteCropComparison(o.compare, rows, o.crop, k, o.zoom)
		if err != nil {
			return err
		}
		fmt.Fprintf(io.out, "wrote %s (centre crops of %dx%d HR pixels, zoom %d, Y-PSNR in the captions)\n", o.compare, crop, crop, o.zoom)
	}
	fmt.Fprintf(io.out, "wrote %s\n", o.out)
	return nil
}
