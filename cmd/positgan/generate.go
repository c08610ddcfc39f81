package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/positgan/positgan/deploy"
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
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return runGenerate(io, *path, *n, *out, *seed, *class)
			}
		}}
}

func runGenerate(io stdio, path string, n int, out string, seed uint64, class int) error {
	switch {
	case path == "":
		return usagef("missing --model")
	case n <= 0 || n > 10000:
		return usagef("--n %d: want 1 to 10000", n)
	case !strings.HasSuffix(strings.ToLower(out), ".png"):
		return usagef("--out %s: want a .png file name", out)
	}
	m, err := deploy.Load(path)
	if err != nil {
		return err
	}
	spec := m.Spec()
	if err := checkClass(class, spec); err != nil {
		return err
	}
	z, labels, rows, cols := gridNoise(spec, n, seed, class)
	imgs, err := m.Generate(z, labels)
	if err != nil {
		return err
	}
	if err := gan.WriteGrid(out, imgs, spec.Image, rows, cols); err != nil {
		return err
	}
	name := m.Meta.PolicyName
	if name == "" {
		name = "float32"
	}
	fmt.Fprintf(io.out, "wrote %s: %d images (%dx%d grid) from %s (%s, %s)\n", out, len(imgs)/spec.Image.Size(), rows, cols, path, m.Meta.Model.Arch, name)
	return nil
}

// gridNoise returns the latent vectors and labels of a grid of n images,
// drawn as 'positgan sample' draws them (same seed, same images): n
// images in a square grid, or for a conditional model without class (-1)
// one row per class, n rounded up to a multiple of the classes.
func gridNoise(spec gan.GeneratorSpec, n int, seed uint64, class int) (z []float32, labels []int, rows, cols int) {
	total := n
	if class >= 0 {
		uncond := spec
		uncond.Classes = 0
		rows, cols = gan.GridShape(uncond, n) // a square grid of one class
	} else {
		rows, cols = gan.GridShape(spec, n)
		if spec.Classes > 0 {
			total = rows * cols
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x5a4d91e))
	z = make([]float32, total*spec.ZSize())
	for i := range z {
		z[i] = float32(r.NormFloat64())
	}
	if spec.Classes > 0 {
		labels = make([]int, total)
		for i := range labels {
			labels[i] = i / cols
			if class >= 0 {
				labels[i] = class
			}
		}
	}
	return z, labels, rows, cols
}

// checkClass reports a bad --class: -1 (all classes) or a class of the
// model.
func checkClass(class int, spec gan.GeneratorSpec) error {
	if class == -1 || (class >= 0 && class < spec.Classes) {
		return nil
	}
	if spec.Classes == 0 {
		return usagef("--class %d: the model has no classes", class)
	}
	return usagef("--class %d: want 0 to %d, or -1 for one row per class", class, spec.Classes-1)
}
