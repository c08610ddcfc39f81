package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
)

// evalPRDCCmd is eval prdc: like KID it needs the features of every
// image, so its inputs are image sets, checkpoints and .npz files that
// hold features (eval stats --save-features), not statistics alone.
func evalPRDCCmd() *command {
	return &command{name: "prdc", usage: "REAL FAKE [--k K] [--features lenet-mnist] [--n N]",
		summary: "Improved precision and recall (Kynkäänniemi et al. 2019, k = 3) and density and coverage (Naeem\n" +
			"et al. 2020, k = 5) of the image set FAKE against REAL, as Naeem et al.'s prdc.py computes them:\n" +
			"a point's ball reaches to its k-th nearest neighbour in its own set (itself excluded) and holds\n" +
			"the points strictly closer. REAL and FAKE are what eval fid takes, or .npz files holding a\n" +
			"features array (N×d, as eval stats --save-features writes). Prints CSV metric,value.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			o := addFeatureFlags(fs)
			k := fs.Int("k", 0, "nearest neighbours of all four figures; 0: 3 for precision and recall, 5 for density and coverage, the papers' choices")
			return func(args []string, io stdio) error { return runEvalPRDC(args, o, *k, io) }
		}}
}

func runEvalPRDC(args []string, o featureFlags, k int, io stdio) error {
	if len(args) != 2 {
		return usagef("want two image sets, checkpoints or .npz feature files, got %d arguments", len(args))
	}
	if k < 0 {
		return usagef("--k %d: want 0 (the papers' choices) or more", k)
	}
	m, err := eval.LookupSet("prdc")
	if err != nil {
		return err
	}
	ext, err := o.extractor(args)
	if err != nil {
		return err
	}
	var sets [2]eval.Features
	for i, path := range args {
		if sets[i], err = evalLoadFeatureSet(path, o, ext, io); err != nil {
			return err
		}
	}
	na, nb := sets[0].Stats.Features, sets[1].Stats.Features
	if na != "" && nb != "" && na != nb {
		fmt.Fprintf(io.err, "warning: %s holds features of %s, %s of %s: figures of different feature networks or modes are not comparable\n",
			args[0], na, args[1], nb)
	}
	figs, err := m.CompareSets(eval.Features{Rows: sets[0].Rows}, eval.Features{Rows: sets[1].Rows}, eval.Options{K: k})
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("metric,value\n")
	for i, name := range m.(eval.FigureNamer).FigureNames() {
		fmt.Fprintf(&b, "%s,%s\n", name, evalFormat(figs[i]))
	}
	_, err = fmt.Fprint(io.out, b.String())
	return err
}

// evalLoadFeatureSet returns the features of every image of path
// (experiment.SetFeatureSet: read from a .npz file, or computed with ext
// as eval kid computes them), and warns when a file's features are of
// another network than ext.
func evalLoadFeatureSet(path string, o featureFlags, ext featnet.Extractor, io stdio) (eval.Features, error) {
	f, err := evalLoad(experiment.SetFeatureSet, path, ext, o, io.err) // ext is nil only when every input is a .npz file
	if err != nil {
		return f, err
	}
	if name := f.Stats.Features; ext != nil && name != "" && name != ext.Name() {
		fmt.Fprintf(io.err, "warning: %s holds features of %s, not %s: figures of different feature networks or modes are not comparable\n",
			path, name, ext.Name())
	}
	return f, nil
}
