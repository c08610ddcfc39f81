package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

func generateCmd() *command {
	return &command{name: "generate", usage: "--model gen.pgmodel [--n 64] [--out grid.png] [--class k] [--seed s]",
		summary: "draw a grid of images from an exported .pgmodel generator, from that file alone\n\n" +
			"The network is rebuilt from the stored configuration and runs with the stored formats and\n" +
			"accumulation. With the same --n, --class and --seed the grid is the one 'positgan sample' draws\n" +
			"from the source checkpoint under the export's policy, bit for bit.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			path := fs.String("model", "", "model written by positgan export (required)")
			n := fs.Int("n", 64, "number of images")
			out := fs.String("out", "grid.png", "output PNG file")
			seed := fs.Uint64("seed", 1, "seed of the latent noise")
			class := fs.Int("class", -1, "conditional models: draw only this class")
			npy := npyFlag(fs)
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return runGenerate(io, *path, *n, *out, *seed, *class, *npy)
			}
		}}
}

func runGenerate(io stdio, path string, n int, out string, seed uint64, class int, npy string) error {
	if err := checkNPY("npy", npy); err != nil {
		return err
	}
	switch {
	case path == "":
		return usagef("missing --model")
	case n <= 0 || n > 10000:
		return usagef("--n %d: want 1 to 10000", n)
	case !hasExt(out, ".png"):
		return extError("out", out, ".png")
	}
	m, err := deploy.Load(path)
	if err != nil {
		return err
	}
	spec := m.Spec()
	if err := checkClass(class, spec); err != nil {
		return err
	}
	imgs, rows, cols, err := m.GenerateGrid(n, seed, class)
	if err != nil {
		return err
	}
	if err := gan.WriteGrid(out, imgs, spec.Image, rows, cols); err != nil {
		return err
	}
	sh := spec.Image
	w, err := experiment.WriteOutputsNPY(npy, imgs, len(imgs)/sh.Size(), sh.C, sh.H, sh.W)
	if err != nil {
		return err
	}
	name := m.Meta.PolicyName
	if name == "" {
		name = "float32"
	}
	fmt.Fprintf(io.out, "wrote %s: %s (%dx%d grid) from %s (%s, %s)\n", out, count(len(imgs)/spec.Image.Size(), "images"), rows, cols, path, m.Meta.Model.Arch, name)
	if w != "" {
		fmt.Fprintf(io.out, "wrote %s\n", w)
	}
	return nil
}

// checkClass reports a bad --class (experiment.CheckClass).
func checkClass(class int, spec gan.GeneratorSpec) error {
	return classError(experiment.CheckClass(class, spec))
}

// classError words an *experiment.ClassError as a usage error of --class.
func classError(err error) error {
	var ce *experiment.ClassError
	switch {
	case !errors.As(err, &ce):
		return err
	case ce.Classes == 0:
		return usagef("--class %d: the model has no classes", ce.Class)
	}
	return usagef("--class %d: want 0 to %d, or -1 for one row per class", ce.Class, ce.Classes-1)
}
