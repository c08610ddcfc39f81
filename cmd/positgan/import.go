package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/models"
)

func importCmd() *command {
	return &command{name: "import", usage: "--arch ARCH --weights FILE --out CKPT.safetensors [--key NAME]",
		summary: "make a positgan checkpoint of a pretrained PyTorch generator\n\n" +
			"FILE is a state dict saved with torch.save (.pth, .pt; read by positgan's own pickle reader,\n" +
			"which runs no code) or a .safetensors file. A dict wrapping the state dict is unwrapped: the\n" +
			"entry --key names or else the first of params_ema, params, state_dict and model; a module.\n" +
			"prefix (DataParallel) is removed. The network's sizes are read from the tensors' shapes;\n" +
			"a file that is not exactly the architecture is refused with the first key that is missing,\n" +
			"mis-shaped or unused. The checkpoint runs under any policy: a DCGAN in sample, export,\n" +
			"generate, scale histogram and deploy-compare, a CycleGAN generator in translate (--direction\n" +
			"AtoB), an ESRGAN RRDBNet in upscale, both in scale histogram. Architectures: " + torchArchList() + ".",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			arch := fs.String("arch", "", "the PyTorch architecture: "+strings.Join(models.TorchArchs(), ", "))
			weights := fs.String("weights", "", "the PyTorch weights (.pth, .pt or .safetensors)")
			out := fs.String("out", "", "the checkpoint to write (.safetensors)")
			key := fs.String("key", "", "the entry of a wrapping dict that holds the state dict")
			return func(args []string, io stdio) error {
				switch {
				case len(args) != 0:
					return usagef("unexpected arguments %q", args)
				case *arch == "" || *weights == "" || *out == "":
					return usagef("--arch, --weights and --out are required")
				}
				if _, err := models.LookupTorch(*arch); err != nil {
					return usageError{err}
				}
				c, err := models.ImportTorch(*arch, *weights, *key)
				if err != nil {
					return err
				}
				if err := ckpt.Save(*out, c); err != nil {
					return err
				}
				cfg, err := models.ConfigOf(c)
				if err != nil {
					return err
				}
				fmt.Fprintf(io.out, "imported %s (%s) -> %s\n", *weights, cfg.Describe(), *out)
				return nil
			}
		}}
}

// torchArchList names each architecture import reads with its summary.
func torchArchList() string {
	var parts []string
	for _, n := range models.TorchArchs() {
		a, _ := models.LookupTorch(n)
		parts = append(parts, n+" ("+a.Summary+")")
	}
	return strings.Join(parts, "; ")
}
