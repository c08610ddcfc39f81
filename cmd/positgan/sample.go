package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/policy"
)

func sampleCmd() *command {
	return &command{name: "sample", usage: "--checkpoint C [--n 64] [--out grid.png | --out-dir DIR] [flags]",
		summary: "draw a grid of images from a trained generator\n\n" +
			"Conditional models (cgan) draw one row per class (n rounded up to a multiple of the classes,\n" +
			"or n images of one class with --class). The generator runs in the checkpoint's policy,\n" +
			"with its exponent biases, unless --policy names another (to study deployment formats).\n" +
			"--out-dir writes each image as its own PNG file (00000.png, or 00000_class3.png for\n" +
			"conditional models), as pytorch-fid and 'positgan classify' take them; the grid is then\n" +
			"written only if --out is given too.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			path := fs.String("checkpoint", "", "checkpoint written by positgan train (required)")
			n := fs.Int("n", 64, "number of images")
			out := fs.String("out", "grid.png", "output PNG file")
			seed := fs.Uint64("seed", 1, "seed of the latent noise")
			policySpec := fs.String("policy", "", "run the generator in this policy instead of the checkpoint's")
			class := fs.Int("class", -1, "conditional models: draw only this class")
			batchStats := fs.Bool("batch-stats", false, "normalise by the statistics of the grid's batch (batch norm in training mode, as the reference DCGAN code samples) instead of the running statistics")
			outDir := fs.String("out-dir", "", "write one PNG file per image to this folder")
			no := sampleNoiseFlags(fs)
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				grid := *out
				if *outDir != "" && !flagSet(fs, "out") {
					grid = "" // only the image files
				}
				return runSample(io, *path, *n, grid, *outDir, *seed, *policySpec, *class, gan.SampleOptions{BatchStats: *batchStats}, no.given(fs))
			}
		}}
}

// runSample writes n images of a checkpoint's generator as a grid (out,
// unless "") and as image files in outDir (unless "").
func runSample(io stdio, path string, n int, out, outDir string, seed uint64, policySpec string, class int, o gan.SampleOptions, no *noiseOptions) error {
	if err := no.check(); err != nil {
		return err
	}
	switch {
	case path == "":
		return usagef("missing --checkpoint")
	case n <= 0 || n > 10000:
		return usagef("--n %d: want 1 to 10000", n)
	case out != "" && !hasExt(out, ".png"):
		return extError("out", out, ".png")
	case class < -1:
		return usagef("--class %d: want a class, or -1 for one row per class", class)
	}
	if outDir != "" {
		// Fail now, not after loading and generating.
		if err := atomicfile.MkdirWritable(outDir); err != nil {
			return fmt.Errorf("--out-dir %s: %w", outDir, err)
		}
	}
	var pol *policy.Policy
	if policySpec != "" {
		var err error
		if pol, err = policy.Parse(policySpec); err != nil {
			return usageError{fmt.Errorf("--policy %s: %w", policySpec, err)}
		}
	}
	c, err := ckpt.Load(path)
	if err != nil {
		return err
	}
	sm, err := sampleImages(c, pol, n, seed, class, o, no)
	if errors.Is(err, experiment.ErrNotGenerator) {
		return fmt.Errorf("%s: %w", path, err)
	} else if err != nil {
		return classError(err)
	}
	wrote, err := sm.Write(outDir, out, no.npy)
	if err != nil {
		return err
	}
	name := "the checkpoint's policy"
	if sm.Policy != nil {
		name = sm.Policy.Name
	}
	mode := "running statistics"
	if sm.BatchStats {
		mode = "batch statistics"
	}
	fmt.Fprintf(io.out, "wrote %s from %s (step %d) in %s, batch norm with %s\n", strings.Join(wrote, " and "), path, sm.Step, name, mode)
	return nil
}
