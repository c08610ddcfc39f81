package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/policy"
)

func exportCmd() *command {
	return &command{name: "export", usage: "--checkpoint C [--policy P] --out gen.pgmodel [--hex DIR] [--fold-bn]",
		summary: "export a trained generator for inference as a bit-packed .pgmodel file\n\n" +
			"Every tensor is stored as its format's codes (posit(6,1) weights take 6 bits), with each layer's\n" +
			"formats and exponent biases, the output tanh, the model configuration and the policy, checksummed\n" +
			"(docs/deployment.md gives the byte layout). The generator runs in --policy, or in the checkpoint's\n" +
			"policy with its exponent biases; 'positgan generate' then makes the images 'positgan sample' makes\n" +
			"with the same policy, bit for bit. --hex writes $readmemh memory files and golden vectors for RTL.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			path := fs.String("checkpoint", "", "checkpoint written by positgan train (required)")
			policySpec := fs.String("policy", "", "deploy in this policy (preset, format or .toml) instead of the checkpoint's")
			out := fs.String("out", "", "output .pgmodel file (required)")
			hex := fs.String("hex", "", "also write memory files and golden vectors to this folder")
			seed := fs.Uint64("seed", 1, "--hex: seed of the golden input's latent vector")
			class := fs.Int("class", 0, "--hex: class of the golden input (conditional models)")
			fold := fs.Bool("fold-bn", false, "fold batch norm into the layer before it where that layer has a bias (changes the weights: no longer bit-identical to the checkpoint)")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return runExport(io, *path, *policySpec, *out, *hex, *seed, *class, *fold)
			}
		}}
}

func runExport(io stdio, path, policySpec, out, hex string, seed uint64, class int, fold bool) error {
	switch {
	case path == "":
		return usagef("missing --checkpoint")
	case out == "":
		return usagef("missing --out")
	case strings.HasSuffix(strings.ToLower(out), ".pgm"):
		return usagef("--out %s: .pgm is an image format; use .pgmodel", out)
	case !hasExt(out, ".pgmodel"):
		return extError("out", out, ".pgmodel")
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
	var opts []deploy.Option
	if fold {
		opts = append(opts, deploy.FoldBatchNorm())
	}
	m, err := deploy.Export(c, pol, opts...)
	if err != nil {
		return err
	}
	switch {
	case m.Meta.Classes == 0 && class != 0:
		return usagef("--class %d: the model has no classes", class)
	case class < 0 || (m.Meta.Classes > 0 && class >= m.Meta.Classes):
		return usagef("--class %d: the model has %d classes", class, m.Meta.Classes)
	}
	if hex != "" { // checked before anything is written, made only once the flags are known good
		if err := atomicfile.MkdirWritable(hex); err != nil {
			return err
		}
	}
	if err := m.Save(out); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	name := m.Meta.PolicyName
	if name == "" {
		name = "float32"
	}
	ck := ""
	if cs, err := os.Stat(path); err == nil {
		ck = fmt.Sprintf("; checkpoint file with D and Adam state: %d bytes", cs.Size())
	}
	f32 := m.Float32Bytes()
	fmt.Fprintf(io.out, "wrote %s: %s generator in %s, %d bytes = 1/%.2f of its tensors as float32 (%d bytes%s); batch norm %s\n",
		out, m.Meta.Model.Arch, name, st.Size(), float64(f32)/float64(st.Size()), f32, ck, m.Meta.BatchNorm)
	if hex == "" {
		return nil
	}
	if err := m.WriteGoldenHex(hex, seed, class); err != nil {
		return err
	}
	fmt.Fprintf(io.out, "wrote memory files and golden vectors to %s (manifest.json lists them)\n", hex)
	return nil
}
