package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

func translateCmd() *command {
	return &command{name: "translate", usage: "--checkpoint C --direction AtoB --in DIR --out DIR [--policy P]\n       positgan translate --checkpoint C --fid [--direction AtoB|BtoA|both] [--dataset D] [--n 2000] [--policy P]",
		summary: "translate a folder of images with a trained image-to-image model (cyclegan)\n\n" +
			"Every image of --in (PNG, JPEG, ...; resized and centre-cropped to the model's size) is\n" +
			"translated by G_AB (--direction AtoB) or G_BA (BtoA) and written to --out under the same\n" +
			"file name. The generator runs in the checkpoint's policy, with its exponent biases, unless\n" +
			"--policy names another; then the same checkpoint also translates in fp32, and PSNR and SSIM\n" +
			"(8-bit images, eval ssim's definition) of each image against its fp32 translation are\n" +
			"printed, then their means, as the posit CycleGAN deployment study measures quality.\n\n" +
			"With --fid, nothing is written: --n test images of the source domain of --dataset (by default\n" +
			"the data set the checkpoint was trained on) are translated and their FID against --n test\n" +
			"images of the target domain is printed, per direction (--direction both: A→B, then B→A), with\n" +
			"the feature network's name: for mnist-fashion LeNet-Fashion judges A→B (clothes) and\n" +
			"LeNet-MNIST B→A (digits); other data sets need --features. This FID is not the Inception FID\n" +
			"of the CycleGAN literature.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			o := translateOptions{}
			fs.StringVar(&o.checkpoint, "checkpoint", "", "checkpoint written by positgan train --model cyclegan (required)")
			fs.StringVar(&o.direction, "direction", "AtoB", "AtoB (G_AB) or BtoA (G_BA)")
			fs.StringVar(&o.in, "in", "", "folder of images to translate, or mnist, fashion-mnist or an IDX directory: the first --n images of its test split, written as test_00000.png, ... (required)")
			fs.StringVar(&o.out, "out", "", "folder to write the translations to (required)")
			fs.StringVar(&o.policy, "policy", "", "run the generator in this policy instead of the checkpoint's, and compare with fp32")
			fs.IntVar(&o.batch, "batch", 16, "images per batch")
			fs.BoolVar(&o.fid, "fid", false, "print the FID of the translations of test images against test images of the target domain (--direction both: each way)")
			fs.StringVar(&o.dataset, "dataset", "", "--fid: the unpaired data set whose test splits are used (default: the checkpoint's)")
			fs.StringVar(&o.features, "features", "", "--fid: feature network ("+featnet.Specs+"); default for mnist-fashion: lenet-fashion for A→B, lenet-mnist for B→A")
			fs.IntVar(&o.n, "n", 2000, "--fid: images per FID, drawn from each test split (0: all of the smaller); --in a data set: its first N test images")
			fs.Uint64Var(&o.seed, "seed", 1, "--fid: seed of the draw of test images")
			fs.StringVar(&o.npy, "npy", "", npyUsage)
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				if o.fid {
					if o.npy != "" {
						return usagef("--npy: --fid writes no images")
					}
					o.directionSet = flagSet(fs, "direction")
					return runTranslateFID(o, io)
				}
				for _, n := range []string{"dataset", "features", "seed"} {
					if flagSet(fs, n) {
						return usagef("--%s is a flag of translate --fid", n)
					}
				}
				o.nSet = flagSet(fs, "n")
				return runTranslate(o, io)
			}
		}}
}

type translateOptions struct {
	checkpoint, direction, in, out, policy string
	npy                                    string
	batch                                  int

	// --fid
	fid, directionSet, nSet bool
	dataset, features       string
	n                       int
	seed                    uint64
}

func runTranslate(o translateOptions, io stdio) error {
	switch {
	case o.checkpoint == "":
		return usagef("missing --checkpoint")
	case o.in == "":
		return usagef("missing --in")
	case o.out == "":
		return usagef("missing --out")
	case o.batch <= 0:
		return usagef("--batch %d: must be positive", o.batch)
	}
	if err := checkNPY("npy", o.npy); err != nil {
		return err
	}
	dir, group, err := models.ParseDirection(o.direction)
	if err != nil {
		return usagef("--direction %q: want AtoB or BtoA", o.direction)
	}
	var pol *policy.Policy
	if o.policy != "" {
		if pol, err = policy.Parse(o.policy); err != nil {
			return usageError{fmt.Errorf("--policy %s: %w", o.policy, err)}
		}
	}
	c, cfg, err := loadTranslator(o.checkpoint, dir)
	if err != nil {
		return err
	}
	sh := datasets.Shape{C: cfg.Channels, H: cfg.Height, W: cfg.Width}
	src, names, err := translateSource(o, sh)
	if err != nil {
		return err
	}
	got, err := experiment.TranslateFiles(c, pol, group, src, names, o.batch, o.out)
	if err != nil {
		return err
	}
	if w, err := experiment.WriteOutputsNPY(o.npy, got, len(names), sh.C, sh.H, sh.W); err != nil {
		return err
	} else if w != "" {
		fmt.Fprintf(io.out, "wrote %s\n", w)
	}
	if pol == nil {
		fmt.Fprintf(io.out, "translated %s (%s) into %s\n", count(len(names), "images"), group, o.out)
		return nil
	}
	cmp, err := experiment.CompareToFP32(c, group, src, o.batch, got, names)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.out, "translated %s (%s) in %s into %s; against the fp32 translation:\n", count(len(names), "images"), group, o.policy, o.out)
	return cmp.WriteTable(io.out)
}

// loadTranslator loads --checkpoint (experiment.LoadTranslator); a model
// that does not translate is a usage error.
func loadTranslator(path string, dirs ...string) (*ckpt.Checkpoint, models.Config, error) {
	c, cfg, err := experiment.LoadTranslator(path, dirs...)
	var ne *experiment.NotTranslatorError
	if errors.As(err, &ne) {
		return nil, cfg, usagef("--checkpoint %s holds a %s model, which does not translate images (want cyclegan)", path, ne.Arch)
	}
	return c, cfg, err
}

// translateSource returns the images --in names and their file names
// (experiment.TranslationSource): every image of a folder, or the first
// --n images of a data set's test split.
func translateSource(o translateOptions, sh datasets.Shape) (datasets.Dataset, []string, error) {
	if datasets.IsImageFolder(o.in) {
		if o.nSet {
			return nil, nil, usagef("--n: --in %s is a folder: every image of it is translated", o.in)
		}
	} else if o.n <= 0 {
		return nil, nil, usagef("--n %d: must be positive", o.n)
	}
	return experiment.TranslationSource(o.in, o.n, sh)
}

// runTranslateFID prints the FID of the checkpoint's translations of test
// images, per direction (models.TranslationFID).
func runTranslateFID(o translateOptions, io stdio) error {
	switch {
	case o.checkpoint == "":
		return usagef("missing --checkpoint")
	case o.in != "" || o.out != "":
		return usagef("--fid translates the test split of --dataset: --in and --out are not used")
	case o.batch <= 0:
		return usagef("--batch %d: must be positive", o.batch)
	case o.n < 0 || o.n == 1:
		return usagef("--n %d: an FID needs at least 2 images (0: all)", o.n)
	}
	dirs := []string{models.AtoB, models.BtoA}
	if o.directionSet && !strings.EqualFold(o.direction, "both") {
		d, _, err := models.ParseDirection(o.direction)
		if err != nil {
			return usagef("--direction %q: want AtoB, BtoA or both", o.direction)
		}
		dirs = []string{d}
	}
	var pol *policy.Policy
	if o.policy != "" {
		var err error
		if pol, err = policy.Parse(o.policy); err != nil {
			return usageError{fmt.Errorf("--policy %s: %w", o.policy, err)}
		}
	}
	c, _, err := loadTranslator(o.checkpoint, dirs...)
	if err != nil {
		return err
	}
	err = experiment.TranslationFIDs(c, models.TranslationFID{Dataset: o.dataset, Features: o.features,
		N: o.n, Seed: o.seed, Batch: o.batch, Policy: pol}, dirs, func(d string, fid float64, metric string) {
		fmt.Fprintf(io.out, "%s\t%s\t%s\n", d, evalFormat(fid), metric)
	})
	var fe *experiment.NoFeaturesError
	switch {
	case errors.Is(err, experiment.ErrNoTrainingSet):
		return usagef("--checkpoint %s does not say what it was trained on: give --dataset", o.checkpoint)
	case errors.As(err, &fe):
		return usagef("--dataset %s: no default feature network; give --features (%s)", fe.Dataset, featnet.Specs)
	}
	return err
}
