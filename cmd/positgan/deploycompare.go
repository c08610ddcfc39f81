package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
)

func deployCompareCmd() *command {
	return &command{name: "deploy-compare", usage: "--checkpoint C --out DIR [--bits 6[,5,4]] [--n 2000] [--search-n 500] [--in DIR [--hr DIR] [--map M]]",
		summary: "the deployment table: a float32-trained generator deployed in 8, 6 (and 5, 4) bit formats\n\n" +
			"Rows: FP32; P8 (posit(8,1)), P8+ (with exponent biases), P8+T (and the bitwise tanh), the best\n" +
			"FP8; and for every width of --bits the posit (posit(b,1), posit(4,0) below 5 bits), +, +T and the\n" +
			"best float of that width: every split 1+e+m (m >= 1), with and without Inf, saturation and\n" +
			"subnormals, each at the exponent biases the layers' histograms choose, then the best two refined\n" +
			"by a hill climb on the biases. The search ranks candidates by the FID of --search-n images;\n" +
			"every row of the table is measured on --n. Each row is the generator exported as a .pgmodel\n" +
			"(dot-product operands in the row's format, outputs posit(16,1)) and run from it. Columns: FID,\n" +
			"PSNR of the images against FP32's from the same noise, .pgmodel bytes, the weights that round to\n" +
			"zero or saturate. Writes DIR/deploy.md, deploy.csv, search.csv, fid.png, grids.png, grids/<row>.png.\n\n" +
			"Generators that map images to images (cyclegan, esrgan, trained or imported) are not judged by\n" +
			"FID: --in DIR (a folder or one image) gives their inputs, and every row is judged by the PSNR and\n" +
			"SSIM of its 8-bit outputs against the FP32 row's, means over the images (the search maximises\n" +
			"the PSNR on the first --search-n images; +T rows are left out). For esrgan, --hr DIR adds the\n" +
			"Y-PSNR (scale pixels shaved, as SR papers) against ground truth: for each input an image of the\n" +
			"same name, scale times its size. --map picks CycleGAN's direction (AtoB, the default, or BtoA).\n" +
			"Writes DIR/deploy.md, deploy.csv, search.csv and outputs/<row>/<image>.png; no .pgmodel sizes.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			path := fs.String("checkpoint", "", "checkpoint written by positgan train, trained in fp32 (required)")
			out := fs.String("out", "", "output folder (required)")
			bits := fs.String("bits", "6", "narrow widths beside the 8-bit rows, comma-separated, 3 to 7")
			n := fs.Int("n", 2000, "images per FID in the table (and real test images of the reference)")
			searchN := fs.Int("search-n", 500, "images per FID while searching float splits and exponent biases")
			features := fs.String("features", "lenet-mnist", "feature network of the FID: "+featnet.Specs)
			dataset := fs.String("dataset", "mnist", "data set whose test split gives the real images")
			seed := fs.Uint64("seed", 1, "seed of the evaluation noise, the reference sample and the grids")
			accum := fs.String("accum", "", "accumulation of every quantized row: fp32, quire or per-op (default: fp32)")
			in := fs.String("in", "", "folder (or image) of inputs for a generator that maps images: rows judged by PSNR/SSIM against FP32")
			hr := fs.String("hr", "", "with --in and an esrgan: folder of same-named ground-truth images for Y-PSNR")
			mapName := fs.String("map", "", "with --in: the image map to judge (cyclegan: AtoB or BtoA; default: the first)")
			sparse := fs.String("sparsity", "", "N:M patterns, comma-separated (e.g. 2:4,1:4): adds FP32, Pb and Pb+ rows with the weights masked by |w|")
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				o := experiment.DeployOptions{Features: *features, Dataset: *dataset, N: *n, SearchN: *searchN, Seed: *seed, Accum: *accum, Log: io.err,
					In: *in, HR: *hr, Map: *mapName}
				var err error
				if o.Sparsity, err = experiment.ParsePatterns(*sparse); err != nil {
					return usagef("--sparsity %s: %v", *sparse, err)
				}
				return runDeployCompare(io, *path, *out, *bits, o)
			}
		}}
}

func runDeployCompare(io stdio, path, out, bits string, o experiment.DeployOptions) error {
	switch {
	case path == "":
		return usagef("missing --checkpoint")
	case out == "":
		return usagef("missing --out")
	// experiment reads 0 as its default; here it can only be a typed 0.
	case o.N == 0:
		return usagef("--n 0: an FID needs at least 2 images")
	case o.SearchN == 0:
		return usagef("--search-n 0: an FID needs at least 2 images")
	}
	o.Bits = []int{}
	for _, s := range strings.Split(bits, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return usagef("--bits %s: want widths from 3 to 7, comma-separated", bits)
		}
		o.Bits = append(o.Bits, b)
	}
	if err := o.Check(); err != nil {
		var oe *experiment.DeployOptionError
		if !errors.As(err, &oe) {
			return err
		}
		flag, value := map[string][2]string{
			"N":        {"--n", strconv.Itoa(o.N)},
			"SearchN":  {"--search-n", strconv.Itoa(o.SearchN)},
			"Bits":     {"--bits", bits},
			"Accum":    {"--accum", o.Accum},
			"Sparsity": {"--sparsity", strings.ReplaceAll(strings.Trim(fmt.Sprint(o.Sparsity), "[]"), " ", ",")},
			"HR":       {"--hr", o.HR},
		}[oe.Option], oe.Err
		return usagef("%s %s: %v", flag[0], flag[1], value)
	}
	c, err := ckpt.Load(path)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	t0 := time.Now()
	cmp, paths, err := experiment.DeployCompareInto(ctx, c, o, out)
	var oe *experiment.DeployOptionError
	if errors.As(err, &oe) {
		// --in, --hr and --map are checked against the checkpoint's
		// model and the images: a usage error, after loading.
		if flag := map[string]string{"In": "--in", "HR": "--hr", "Map": "--map"}[oe.Option]; flag != "" {
			return usagef("%s: %v", flag, oe.Err)
		}
	}
	if err != nil {
		return err
	}
	if err := cmp.WriteMarkdown(io.out); err != nil {
		return err
	}
	if cmp.Map != "" {
		fmt.Fprintf(io.out, "\n%d candidates searched; %s wall; wrote %s and the outputs of %d rows\n", len(cmp.Candidates),
			time.Since(t0).Round(time.Second), strings.Join(paths[:3], ", "), len(cmp.Rows))
		return nil
	}
	fmt.Fprintf(io.out, "\n%d candidates searched; %s wall; wrote %s and %d grids\n", len(cmp.Candidates),
		time.Since(t0).Round(time.Second), strings.Join(paths[:5], ", "), len(paths)-5)
	return nil
}
