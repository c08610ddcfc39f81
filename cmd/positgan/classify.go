package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/internal/numfmt"
)

func classifyCmd() *command {
	return &command{name: "classify", usage: "IMAGES... [--features lenet-mnist]",
		summary: "print the class a LeNet classifier gives each image, as CSV: file,class,confidence\n\n" +
			"IMAGES are image files or folders (their images at any depth, in sorted order). Each image is\n" +
			"brought to the network's 1x28x28 gray input as eval fid does; the confidence is the softmax\n" +
			"probability of the class. Use it to check that 'positgan sample --class K --out-dir DIR'\n" +
			"draws class K.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			feat := fs.String("features", "lenet-mnist", "classifier: lenet-mnist, lenet-fashion, or lenet:FILE (from positgan lenet train)")
			return func(args []string, io stdio) error { return runClassify(args, *feat, io) }
		}}
}

// loadLeNet loads a shipped LeNet or, for lenet:FILE, one written by
// positgan lenet train. A name that is neither is a usage error.
func loadLeNet(spec string) (*featnet.LeNet, error) {
	if file, ok := strings.CutPrefix(spec, "lenet:"); ok {
		if file == "" {
			return nil, usagef("--features %s: want lenet:FILE", spec)
		}
		return featnet.LoadLeNet(file)
	}
	if spec != "lenet-mnist" && spec != "lenet-fashion" {
		return nil, usagef("--features: unknown feature network %q (want lenet-mnist, lenet-fashion or lenet:FILE)", spec)
	}
	return featnet.ShippedLeNet(spec)
}

func runClassify(args []string, spec string, io stdio) error {
	if len(args) == 0 {
		return usagef("want image files or folders")
	}
	net, err := loadLeNet(spec)
	if err != nil {
		return err
	}
	files, err := datasets.ImageFiles(args)
	if err != nil {
		return err
	}
	ps, conv, err := net.ClassifyFiles(files)
	if err != nil {
		return err
	}
	if conv > 0 {
		fmt.Fprintf(io.err, "classify: %d of %d images brought to %s's 1x28x28 gray input\n", conv, len(files), net.Name)
	}
	w := csv.NewWriter(io.out)
	w.Write([]string{"file", "class", "confidence"})
	for i, p := range ps {
		w.Write([]string{files[i], strconv.Itoa(p.Class), numfmt.Float32(float32(p.Confidence))})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("writing the CSV: %w", err)
	}
	return nil
}
