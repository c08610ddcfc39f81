package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
)

// evalCmd groups the evaluation commands.
func evalCmd() *command {
	c := &command{name: "eval", sub: []*command{
		{name: "psnr", usage: "A B [--max 255] [--y] [--shave K]",
			summary: "PSNR of two images or two folders of same-named images (mean first, then each image)\n\n" +
				"--y and --shave measure as super-resolution papers do: both images rounded to 8 bits, K\n" +
				"pixels cropped from every border, and with --y only the luma Y = 16 + 65.481R + 128.553G +\n" +
				"24.966B (R, G, B in [0, 1]; MATLAB's rgb2ycbcr, BT.601) compared, peak 255.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				peak := fs.Float64("max", 255, "peak value on the 8-bit scale (255 for the usual definition)")
				y := fs.Bool("y", false, "compare the Y channel of YCbCr (BT.601, MATLAB rgb2ycbcr)")
				shave := fs.Int("shave", 0, "crop this many pixels from every border first (the SR scale factor)")
				return func(args []string, io stdio) error {
					if *y || *shave != 0 {
						return runEvalSRPSNR(args, *peak, *y, *shave, io)
					}
					return runEvalPSNR(args, *peak, io)
				}
			}},
		{name: "ssim", usage: "A B",
			summary: "SSIM of two images or two folders of same-named images (mean first, then each image), as\n" +
				"Wang et al. 2004 and scikit-image's structural_similarity(gaussian_weights=True, sigma=1.5,\n" +
				"use_sample_covariance=False, data_range=255); colour images: the mean over channels",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				return func(args []string, io stdio) error { return runEvalPairs(args, "ssim", eval.Options{}, io) }
			}},
		{name: "fid", usage: "A B [--features lenet-mnist] [--n N]",
			summary: "FID between two image sets, each a .npz statistics file (pytorch-fid --save-stats format),\n" +
				"mnist, fashion-mnist, an IDX file or directory, an image folder, or a generator checkpoint\n" +
				"(--n images are generated from it). Prints the FID first, then\n" +
				"the name of the feature network it was measured with, e.g. FID (LeNet-MNIST).",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				o := addFeatureFlags(fs)
				return func(args []string, io stdio) error { return runEvalFID(args, o, io) }
			}},
		evalKIDCmd(),
		evalPRDCCmd(),
		evalClassCmd(),
		{name: "stats", usage: "A --out stats.npz [--features lenet-mnist] [--n N] [--save-features]",
			summary: "Write the feature statistics (mu, sigma) of an image set as a .npz file pytorch-fid reads;\n" +
				"with --save-features also the features of every image (the array features, N×d), which eval prdc reads.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				o := addFeatureFlags(fs)
				out := fs.String("out", "", "the .npz file to write (required)")
				save := fs.Bool("save-features", false, "also write the features of every image (N×d, float64) as the array features")
				return func(args []string, io stdio) error { return runEvalStats(args, *out, *save, o, io) }
			}},
	}}
	var names []string // every metric, kept in step with the commands
	for _, s := range c.sub {
		names = append(names, s.name)
	}
	slices.Sort(names)
	c.summary = "evaluate images and generators (" + strings.Join(names, ", ") + ")"
	return c
}

// featureFlags choose the feature network and the images an FID uses.
type featureFlags struct {
	features, split *string
	n               *int
	seed            *uint64
	batchStats      *bool
	exif            *bool
}

func addFeatureFlags(fs *flag.FlagSet) featureFlags {
	return featureFlags{
		features: fs.String("features", "lenet-mnist", "feature network: "+featnet.Specs),
		split:    fs.String("split", "train", "split of mnist, fashion-mnist and IDX directories: train or test"),
		n:        fs.Int("n", 0, "images drawn (seeded, without replacement) from each image set; 0: all, as pytorch-fid uses every file (checkpoints: 10000 generated)"),
		seed:     fs.Uint64("seed", 1, "seed of the image draw"),
		batchStats: fs.Bool("batch-stats", false, "checkpoints: generate with batch norm normalising each batch of 100 by its own statistics "+
			"(the reference DCGAN evaluation) instead of the running statistics"),
		exif: fs.Bool("exif-orientation", false, "turn image files upright by their EXIF orientation tag; off by default, as pytorch-fid (PIL's Image.open) does"),
	}
}

// evalFormat prints v with 12 significant digits, and +Inf as "inf".
func evalFormat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', 12, 64)
}

func runEvalPSNR(args []string, peak float64, io stdio) error {
	if len(args) != 2 {
		return usagef("want two images or two folders, got %d arguments", len(args))
	}
	if !(peak > 0) || math.IsInf(peak, 0) {
		return usagef("--max %g: must be positive and finite", peak)
	}
	return runEvalPairs(args, "psnr", eval.Options{Peak: peak}, io)
}

// runEvalSRPSNR is eval psnr with --y or --shave: the registered y-psnr,
// or psnr of shaved images (eval.SRPSNR).
func runEvalSRPSNR(args []string, peak float64, y bool, shave int, io stdio) error {
	if len(args) != 2 {
		return usagef("want two images or two folders, got %d arguments", len(args))
	}
	if peak != 255 {
		return usagef("--max %g: --y and --shave measure with peak 255", peak)
	}
	if shave < 0 {
		return usagef("--shave %d: must not be negative", shave)
	}
	metric := "psnr"
	if y {
		metric = "y-psnr"
	}
	return runEvalPairs(args, metric, eval.Options{Shave: shave}, io)
}

// runEvalPairs prints the registered pair metric (eval.LookupPair) of two
// images, or its mean and each value over the same-named images of two
// folders, measured with o.
func runEvalPairs(args []string, metric string, o eval.Options, io stdio) error {
	if len(args) != 2 {
		return usagef("want two images or two folders, got %d arguments", len(args))
	}
	m, err := eval.LookupPair(metric)
	if err != nil {
		return err
	}
	pairs, err := eval.PairFiles(args[0], args[1])
	if errors.Is(err, eval.ErrFileAndFolder) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	vals, mean, err := eval.ComparePairs(m, pairs, o)
	if err != nil {
		return err
	}
	var out strings.Builder
	fmt.Fprintln(&out, evalFormat(mean))
	for i, p := range pairs {
		fmt.Fprintf(&out, "%s\t%s\n", p.Name, evalFormat(vals[i]))
	}
	_, err = fmt.Fprint(io.out, out.String())
	return err
}

func runEvalFID(args []string, o featureFlags, io stdio) error {
	if len(args) != 2 {
		return usagef("want two image sets or .npz statistics files, got %d arguments", len(args))
	}
	ext, err := o.extractor(args)
	if err != nil {
		return err
	}
	a, err := evalLoad(experiment.SetStats, args[0], ext, o, io.err)
	if err != nil {
		return err
	}
	b, err := evalLoad(experiment.SetStats, args[1], ext, o, io.err)
	if err != nil {
		return err
	}
	if a.Features != "" && b.Features != "" && a.Features != b.Features {
		fmt.Fprintf(io.err, "warning: %s holds features of %s, %s of %s: FIDs of different feature networks or modes are not comparable\n",
			args[0], a.Features, args[1], b.Features)
	}
	fid, err := eval.LookupSet("fid")
	if err != nil {
		return err
	}
	figs, err := fid.CompareSets(eval.Features{Stats: a}, eval.Features{Stats: b}, eval.Options{})
	if err != nil {
		return err
	}
	features := "from statistics files; their feature network is not recorded"
	switch {
	case ext != nil:
		features = ext.Name()
	case a.Features != "" && a.Features == b.Features:
		features = a.Features
	}
	return evalPrintFigures(io, figs, fid.Label(features))
}

// evalPrintFigures prints the figures of a set metric and its label on
// one line, separated by tabs.
func evalPrintFigures(io stdio, figs []float64, label string) error {
	var b strings.Builder
	for _, v := range figs {
		b.WriteString(evalFormat(v) + "\t")
	}
	_, err := fmt.Fprintln(io.out, b.String()+label)
	return err
}

// runEvalStats is eval stats: the feature statistics of one image set,
// and with saveFeatures (--save-features) the features of every image
// beside them (eval.WriteFeatures), for eval prdc.
func runEvalStats(args []string, out string, saveFeatures bool, o featureFlags, io stdio) error {
	switch {
	case len(args) != 1:
		return usagef("want one image set, got %d arguments", len(args))
	case out == "":
		return usagef("--out is required")
	case !hasExt(out, ".npz"):
		return extError("out", out, ".npz")
	case experiment.IsStatsFile(args[0]):
		return usagef("%s is already statistics", args[0])
	}
	ext, err := o.extractor(args)
	if err != nil {
		return err
	}
	if saveFeatures {
		rows, err := evalLoad(experiment.SetFeatures, args[0], ext, o, io.err)
		if err != nil {
			return err
		}
		fs, err := experiment.FeaturesOf(rows, ext.Name())
		if err != nil {
			return err
		}
		if err := eval.WriteFeatures(out, fs); err != nil {
			return err
		}
		n, d := rows.Dims()
		_, err = fmt.Fprintf(io.out, "%s: %d features of %d images (%s)\n", out, d, n, ext.Name())
		return err
	}
	st, err := evalLoad(experiment.SetStats, args[0], ext, o, io.err)
	if err != nil {
		return err
	}
	if err := eval.WriteStats(out, st); err != nil {
		return err
	}
	_, err = fmt.Fprintf(io.out, "%s: %d features (%s)\n", out, len(st.Mu), ext.Name())
	return err
}

// extractor loads the feature network; it returns nil when every input is
// a statistics file, whose network is unknown.
func (o featureFlags) extractor(args []string) (featnet.Extractor, error) {
	if *o.n < 0 {
		return nil, usagef("--n %d: want 0 (all) or more", *o.n)
	}
	if *o.n > experiment.MaxGenerated && slices.ContainsFunc(args, experiment.IsCheckpoint) {
		return nil, usagef("--n %d: a checkpoint generates at most %d images to be measured", *o.n, experiment.MaxGenerated)
	}
	e, err := featnet.Load(*o.features) // checked even when only statistics files are given
	if err != nil {
		return nil, usageError{err}
	}
	if !slices.ContainsFunc(args, func(a string) bool { return !experiment.IsStatsFile(a) }) {
		return nil, nil
	}
	return e, nil
}

// setOptions returns how the images of path are drawn. --split is
// checked only for a data set: statistics files and checkpoints have
// none.
func (o featureFlags) setOptions(path string) (experiment.SetOptions, error) {
	so := experiment.SetOptions{Set: featnet.SetOptions{N: *o.n, Seed: *o.seed, ExifOrientation: *o.exif}, BatchStats: *o.batchStats}
	if experiment.IsStatsFile(path) || experiment.IsCheckpoint(path) {
		return so, nil
	}
	switch *o.split {
	case "train":
		so.Set.Split = datasets.Train
	case "test":
		so.Set.Split = datasets.Test
	default:
		return so, usagef("--split %q: want train or test", *o.split)
	}
	return so, nil
}

// evalLoad reads path with load (experiment.SetStats, SetFeatures or
// SetFeatureSet), its images drawn as the flags say. A note on how the
// images were brought to ext's input goes to log.
func evalLoad[T any](load func(string, featnet.Extractor, experiment.SetOptions) (T, string, error), path string, ext featnet.Extractor, o featureFlags, log io.Writer) (T, error) {
	so, err := o.setOptions(path)
	if err != nil {
		var zero T
		return zero, err
	}
	v, note, err := load(path, ext, so)
	if err == nil && note != "" {
		fmt.Fprintln(log, note)
	}
	return v, err
}
