package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

func sampleCmd() *command {
	return &command{name: "sample", usage: "--checkpoint C [--n 64] [--out grid.png] [flags]",
		summary: "draw a grid of images from a trained generator\n\n" +
			"Conditional models (cgan) draw one row per class (n rounded up to a multiple of the classes,\n" +
			"or n images of one class with --class). The generator runs in the checkpoint's policy,\n" +
			"with its exponent biases, unless --policy names another (to study deployment formats).",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			path := fs.String("checkpoint", "", "checkpoint written by positgan train (required)")
			n := fs.Int("n", 64, "number of images")
			out := fs.String("out", "grid.png", "output PNG file")
			seed := fs.Uint64("seed", 1, "seed of the latent noise")
			policy := fs.String("policy", "", "run the generator in this policy instead of the checkpoint's")
			class := fs.Int("class", -1, "conditional models: draw only this class")
			batchStats := fs.Bool("batch-stats", false, "normalise by the statistics of the grid's batch (batch norm in training mode, as the reference DCGAN code samples) instead of the running statistics")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return runSample(io, *path, *n, *out, *seed, *policy, *class, gan.SampleOptions{BatchStats: *batchStats})
			}
		}}
}

func runSample(io stdio, path string, n int, out string, seed uint64, policy string, class int, o gan.SampleOptions) error {
	switch {
	case path == "":
		return usagef("missing --checkpoint")
	case n <= 0 || n > 10000:
		return usagef("--n %d: want 1 to 10000", n)
	case !strings.HasSuffix(strings.ToLower(out), ".png"):
		return usagef("--out %s: want a .png file name", out)
	}
	var pol *quant.Policy
	if policy != "" {
		var err error
		if pol, err = quant.ParsePolicy(policy); err != nil {
			return usageError{fmt.Errorf("--policy %s: %w", policy, err)}
		}
	}
	c, err := ckpt.Load(path)
	if err != nil {
		return err
	}
	m, _, err := models.Load(c, pol)
	if err != nil {
		return err
	}
	s, err := gan.ReadState(c)
	if err != nil {
		return err
	}
	gm, ok := m.Model.(gan.Generator)
	if !ok {
		return fmt.Errorf("%s: the model does not make images from noise", path)
	}
	cfg := gm.Generator()
	if class >= 0 && (cfg.Classes == 0 || class >= cfg.Classes) {
		return usagef("--class %d: the model has %d classes", class, cfg.Classes)
	}
	var rows, cols int
	var labels []int
	if class >= 0 {
		uncond := cfg
		uncond.Classes = 0
		rows, cols = gan.GridShape(uncond, n) // a square grid of one class
	} else {
		rows, cols = gan.GridShape(cfg, n)
	}
	total := rows * cols
	r := rand.New(rand.NewPCG(seed, 0x5a4d91e))
	z := make([]float32, total*cfg.ZSize())
	for i := range z {
		z[i] = float32(r.NormFloat64())
	}
	if cfg.Classes > 0 {
		labels = make([]int, total)
		for i := range labels {
			labels[i] = i / cols
			if class >= 0 {
				labels[i] = class
			}
		}
	}
	sm, err := gan.NewSampler(m, total, o)
	if err != nil {
		return err
	}
	imgs := make([]float32, total*cfg.Image.Size())
	if err := sm.Generate(imgs, z, labels); err != nil {
		return err
	}
	if err := gan.WriteGrid(out, imgs, cfg.Image, rows, cols); err != nil {
		return err
	}
	name := "the checkpoint's policy"
	if s.Options.Policy != nil {
		name = s.Options.Policy.Name
	}
	if pol != nil {
		name = pol.Name
	}
	mode := "running statistics"
	if o.BatchStats || m.BatchStats {
		mode = "batch statistics"
	}
	fmt.Fprintf(io.out, "wrote %s: %d images (%dx%d grid) from %s (step %d) in %s, batch norm with %s\n", out, total, rows, cols, path, s.Step, name, mode)
	return nil
}
