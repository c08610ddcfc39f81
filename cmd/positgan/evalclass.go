package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// evalClassCmd is eval class-accuracy: does a conditional generator's
// --class k draw k, by the project's LeNet classifier.
func evalClassCmd() *command {
	return &command{name: "class-accuracy", usage: "CHECKPOINT [--n N] [--features lenet-mnist]",
		summary: "Class accuracy of a conditional generator: does --class k draw k?\n\n" +
			"The fraction of the generator's images that a LeNet classifier gives the class they were drawn\n" +
			"for (positgan classify's class): N images of each class, noise drawn with --seed. Prints CSV\n" +
			"class,accuracy, a row per class, then overall (all images; the mean of the classes).",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			n := fs.Int("n", 1000, "images generated for each class")
			feat := fs.String("features", "lenet-mnist", "classifier: lenet-mnist, lenet-fashion, or lenet:FILE (from positgan lenet train)")
			seed := fs.Uint64("seed", 1, "seed of the noise")
			batchStats := fs.Bool("batch-stats", false, "generate with batch norm normalising each batch of 100 by its own statistics instead of the running statistics")
			return func(args []string, io stdio) error {
				return runEvalClassAccuracy(args, *n, *feat, *seed, *batchStats, io)
			}
		}}
}

func runEvalClassAccuracy(args []string, n int, spec string, seed uint64, batchStats bool, io stdio) error {
	if len(args) != 1 {
		return usagef("want one generator checkpoint, got %d arguments", len(args))
	}
	if n < 1 || n > experiment.MaxGenerated {
		return usagef("--n %d: want 1 to %d images of each class", n, experiment.MaxGenerated)
	}
	net, err := loadLeNet(spec)
	if err != nil {
		return err
	}
	c, err := ckpt.Load(args[0])
	if err != nil {
		return err
	}
	per, all, err := experiment.GeneratorClassAccuracy(c, net, n, seed, 100, gan.SampleOptions{BatchStats: batchStats})
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("class,accuracy\n")
	for k, v := range per {
		fmt.Fprintf(&b, "%s,%s\n", strconv.Itoa(k), evalFormat(v))
	}
	fmt.Fprintf(&b, "overall,%s\n", evalFormat(all))
	_, err = fmt.Fprint(io.out, b.String())
	return err
}
