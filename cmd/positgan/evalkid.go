package main

import (
	"flag"

	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/experiment"
)

// evalKIDCmd is eval kid: KID needs the features themselves, so its
// inputs are image sets and checkpoints, not statistics files.
func evalKIDCmd() *command {
	return &command{name: "kid", usage: "A B [--features lenet-mnist] [--n N] [--subsets 100] [--subset-size 1000]",
		summary: "KID (kernel inception distance) between two image sets or generator checkpoints: the unbiased\n" +
			"MMD² with the cubic polynomial kernel (x·y/d + 1)³, averaged over random subset pairs, as\n" +
			"torchmetrics and clean-fid compute it. Prints the mean, the standard deviation over subsets,\n" +
			"then the metric's name with its feature network, e.g. KID (LeNet-MNIST).",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			o := addFeatureFlags(fs)
			subsets := fs.Int("subsets", 100, "subset pairs averaged")
			size := fs.Int("subset-size", 1000, "images drawn from each set per subset (lowered to the smaller set's size)")
			return func(args []string, io stdio) error {
				return runEvalKID(args, o, eval.KIDOptions{Subsets: *subsets, SubsetSize: *size, Seed: *o.seed}, io)
			}
		}}
}

func runEvalKID(args []string, o featureFlags, opt eval.KIDOptions, io stdio) error {
	if len(args) != 2 {
		return usagef("want two image sets or checkpoints, got %d arguments", len(args))
	}
	if opt.Subsets < 1 || opt.SubsetSize < 2 {
		return usagef("--subsets %d --subset-size %d: want at least 1 subset of at least 2 images", opt.Subsets, opt.SubsetSize)
	}
	kid, err := eval.LookupSet("kid")
	if err != nil {
		return err
	}
	for _, a := range args {
		if experiment.IsStatsFile(a) && kid.NeedsRows() {
			return usagef("%s: KID needs images (or a checkpoint), not statistics", a)
		}
	}
	ext, err := o.extractor(args)
	if err != nil {
		return err
	}
	fa, err := evalLoad(experiment.SetFeatures, args[0], ext, o, io.err)
	if err != nil {
		return err
	}
	fb, err := evalLoad(experiment.SetFeatures, args[1], ext, o, io.err)
	if err != nil {
		return err
	}
	figs, err := kid.CompareSets(eval.Features{Rows: fa}, eval.Features{Rows: fb}, eval.Options{KID: opt})
	if err != nil {
		return err
	}
	return evalPrintFigures(io, figs, kid.Label(ext.Name()))
}
