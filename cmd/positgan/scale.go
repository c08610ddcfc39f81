package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

func scaleCmd() *command {
	return &command{name: "scale", summary: "exponent-bias tools (histogram)", sub: []*command{
		{name: "histogram", usage: "--checkpoint C [--out DIR] [--n 256]",
			summary: "print the binade histograms of a checkpoint's weights, activations, outputs and errors\n\n" +
				"For every quantized layer: the weights, and the inputs, outputs and errors (gradient of the\n" +
				"generator loss at the layer's output, before loss scaling) of one generator step on --n\n" +
				"latent vectors. Prints the bulk of each tensor (binades holding the middle 90% of its nonzero\n" +
				"values) and the exponent bias scaling.ChooseBias picks for the checkpoint's format of that\n" +
				"role; with --out, writes one PNG plot per role (weight.png, act.png, out.png, err.png).\n" +
				"A layer whose policy masks its weights N:M counts only the weights its mask keeps.\n" +
				"Residual sums whose format the policy leaves unnamed follow as role sum, with the format\n" +
				"they were promoted to (the least upper bound of their inputs' formats; docs/formats.md).",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				path := fs.String("checkpoint", "", "checkpoint written by positgan train (required)")
				out := fs.String("out", "", "folder for the PNG plots (none: print only)")
				n := fs.Int("n", 256, "latent vectors for the activation and error histograms")
				seed := fs.Uint64("seed", 1, "seed of the latent vectors")
				format := fs.String("format", "", "choose biases for this format instead of the policy's (e.g. posit(8,1))")
				return func(args []string, io stdio) error {
					if len(args) > 0 {
						return usagef("unexpected argument %q", args[0])
					}
					var f quant.Format
					if *format != "" {
						var err error
						if f, err = quant.Parse(*format); err != nil {
							return usageError{fmt.Errorf("--format: %w", err)}
						}
					}
					return runScaleHistogram(io, *path, *out, *n, *seed, f)
				}
			}},
	}}
}

func runScaleHistogram(io stdio, path, out string, n int, seed uint64, format quant.Format) error {
	if path == "" {
		return usagef("missing --checkpoint")
	}
	if n < 2 || n > 4096 {
		return usagef("--n %d: want 2 to 4096", n)
	}
	c, err := ckpt.Load(path)
	if err != nil {
		return err
	}
	m, cfg, err := models.Load(c, nil)
	if err != nil {
		return err
	}
	s, err := gan.ReadState(c)
	if err != nil {
		return err
	}
	if out != "" {
		if err := atomicfile.MkdirWritable(out); err != nil {
			return err
		}
	}
	hs, err := gan.Histograms(m, n, seed)
	if err != nil {
		return err
	}
	sparse := experiment.KeptWeightHistograms(m, hs)
	pol := s.Options.Policy
	polName := "fp32"
	if pol != nil {
		polName = pol.Name
	}
	fmt.Fprintf(io.out, "%s: %s at step %d, policy %s; activations and errors from %d generated images\n",
		path, cfg.Arch, s.Step, polName, n)
	tw := tabwriter.NewWriter(io.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layer\trole\tvalues\tzeros\tbulk 5%..95%\tmedian\tformat\tbest bias\t")
	for _, h := range hs {
		f := h.Format(pol)
		if format != nil {
			f = format
		}
		b := scaling.BulkOf(h.Hist, f)
		bulk, medS := "-", "-"
		if b.OK {
			bulk, medS = fmt.Sprintf("2^%d..2^%d", b.Lo, b.Hi), fmt.Sprintf("2^%d", b.Median)
		}
		fs, bias := "fp32", "-"
		if f != nil {
			fs = f.String()
		}
		if b.HasBias {
			bias = fmt.Sprintf("%+d", b.Bias)
		}
		role := h.Role
		if p := sparse[h.Layer]; p != "" && role == "weight" {
			role += " (" + p + " kept)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", h.Layer, role, h.Hist.Total()+h.Hist.Zeros+h.Hist.NonFinite,
			h.Hist.Zeros, bulk, medS, fs, bias)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(io.out, "best bias: the extra exponent bias k (format scaled by 2^k) that minimises the mean relative rounding error")
	if out == "" {
		return nil
	}
	for _, role := range gan.Roles() {
		p := filepath.Join(out, role+".png")
		if err := gan.PlotHistograms(p, role, hs, filepath.Base(path)); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintf(io.out, "wrote %s\n", p)
	}
	return nil
}
