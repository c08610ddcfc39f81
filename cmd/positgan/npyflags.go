package main

// The flags that make a generator's inputs and outputs compare with
// PyTorch's exactly: sample --noise (latent vectors from a .npy file) and
// --npy (the float32 outputs, before any 8-bit conversion) on sample,
// generate, translate and upscale.

import (
	"errors"
	"flag"
	"fmt"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
)

const npyUsage = "also write the float32 outputs (N, C, H, W), before any 8-bit conversion, to this .npy file"

// npyFlag defines --npy on fs.
func npyFlag(fs *flag.FlagSet) *string { return fs.String("npy", "", npyUsage) }

// checkNPY reports a --npy (or --noise) file name without the .npy
// extension.
func checkNPY(flag, path string) error {
	if path != "" && !hasExt(path, ".npy") {
		return extError(flag, path, ".npy")
	}
	return nil
}

// noiseOptions are sample's --noise and --npy.
type noiseOptions struct {
	noise, npy string
	nOrSeed    string // the flag --noise excludes that was given, if any
}

func sampleNoiseFlags(fs *flag.FlagSet) *noiseOptions {
	o := &noiseOptions{}
	fs.StringVar(&o.noise, "noise", "", fmt.Sprintf("draw from the latent vectors of this float32 .npy file, N×nz (or N×nz×1×1), N at most %d, instead of drawn noise", experiment.MaxNoiseRows))
	fs.StringVar(&o.npy, "npy", "", npyUsage)
	return o
}

// given records which of the flags --noise excludes were given.
func (o *noiseOptions) given(fs *flag.FlagSet) *noiseOptions {
	for _, n := range []string{"n", "seed"} {
		if flagSet(fs, n) {
			o.nOrSeed = n
		}
	}
	return o
}

func (o *noiseOptions) check() error {
	if o.noise != "" && o.nOrSeed != "" {
		return usagef("--%s: --noise gives the latent vectors", o.nOrSeed)
	}
	if err := checkNPY("noise", o.noise); err != nil {
		return err
	}
	return checkNPY("npy", o.npy)
}

// sampleImages draws the images of sample: from --noise if given, else
// the grid of n images drawn with seed.
func sampleImages(c *ckpt.Checkpoint, pol *policy.Policy, n int, seed uint64, class int, o gan.SampleOptions, no *noiseOptions) (*experiment.Samples, error) {
	if no.noise == "" {
		return experiment.Sample(c, pol, n, seed, class, o)
	}
	sm, err := experiment.SampleNoiseFile(c, pol, no.noise, class, o)
	if errors.Is(err, experiment.ErrBadNoise) {
		return nil, usageError{fmt.Errorf("--noise %w", err)}
	}
	return sm, err
}
