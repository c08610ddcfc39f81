package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/positgan/positgan/eval"
)

// evalCmd groups the evaluation commands.
func evalCmd() *command {
	return &command{name: "eval", summary: "evaluate images and generators (fid, psnr)", sub: []*command{
		{name: "psnr", usage: "A B [--max 255]",
			summary: "PSNR of two images or two folders of same-named images (mean first, then each image)",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				peak := fs.Float64("max", 255, "peak value on the 8-bit scale (255 for the usual definition)")
				return func(args []string, io stdio) error { return runEvalPSNR(args, *peak, io) }
			}},
		{name: "fid", usage: "A B",
			summary: "FID between two .npz statistics files (mu, sigma; pytorch-fid --save-stats format)",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				return func(args []string, io stdio) error { return runEvalFID(args, io) }
			}},
	}}
}

// evalFormat prints v with 12 significant digits, and +Inf as "inf".
func evalFormat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', 12, 64)
}

// evalImageExts returns the extensions eval psnr takes from a folder.
func evalImageExts() []string {
	return []string{".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff"}
}

func runEvalPSNR(args []string, peak float64, io stdio) error {
	if len(args) != 2 {
		return usagef("want two images or two folders, got %d arguments", len(args))
	}
	if !(peak > 0) || math.IsInf(peak, 0) {
		return usagef("--max %g: must be positive and finite", peak)
	}
	a, b := args[0], args[1]
	da, err := evalIsDir(a)
	if err != nil {
		return err
	}
	db, err := evalIsDir(b)
	if err != nil {
		return err
	}
	type pair struct{ name, a, b string }
	var pairs []pair
	switch {
	case da != db:
		return usagef("%s and %s: one is a folder, the other a file", a, b)
	case !da:
		pairs = []pair{{filepath.Base(a), a, b}}
	default:
		na, err := evalImageNames(a)
		if err != nil {
			return err
		}
		nb, err := evalImageNames(b)
		if err != nil {
			return err
		}
		if n, ok := evalFirstMissing(na, nb); ok {
			return fmt.Errorf("%s is in %s but not in %s", n, a, b)
		}
		if n, ok := evalFirstMissing(nb, na); ok {
			return fmt.Errorf("%s is in %s but not in %s", n, b, a)
		}
		if len(na) == 0 {
			return fmt.Errorf("no images (%s) in %s", strings.Join(evalImageExts(), " "), a)
		}
		for _, n := range na {
			pairs = append(pairs, pair{n, filepath.Join(a, n), filepath.Join(b, n)})
		}
	}
	vals := make([]float64, len(pairs))
	var sum float64
	for i, p := range pairs {
		v, err := eval.FilePSNR(p.a, p.b, peak)
		if err != nil {
			return err
		}
		vals[i] = v
		sum += v
	}
	var out strings.Builder
	fmt.Fprintln(&out, evalFormat(sum/float64(len(vals))))
	for i, p := range pairs {
		fmt.Fprintf(&out, "%s\t%s\n", p.name, evalFormat(vals[i]))
	}
	_, err = fmt.Fprint(io.out, out.String())
	return err
}

func evalIsDir(path string) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

// evalImageNames returns the sorted names of the image files directly in dir.
func evalImageNames(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range es {
		if e.Type()&fs.ModeType == 0 && slices.Contains(evalImageExts(), strings.ToLower(filepath.Ext(e.Name()))) {
			names = append(names, e.Name())
		}
	}
	return names, nil // ReadDir sorts by name
}

// evalFirstMissing returns the first name of sorted a that is not in sorted b.
func evalFirstMissing(a, b []string) (string, bool) {
	for _, n := range a {
		if _, ok := slices.BinarySearch(b, n); !ok {
			return n, true
		}
	}
	return "", false
}

func runEvalFID(args []string, io stdio) error {
	if len(args) != 2 {
		return usagef("want two .npz statistics files, got %d arguments", len(args))
	}
	a, err := evalLoadStats(args[0])
	if err != nil {
		return err
	}
	b, err := evalLoadStats(args[1])
	if err != nil {
		return err
	}
	d, err := eval.FrechetDistance(a, b)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(io.out, evalFormat(d))
	return err
}

// evalLoadStats returns the feature statistics of path. Only .npz statistics
// are read for now; image folders, IDX files and checkpoints need a feature
// network, which a --features flag will name and this function will run.
func evalLoadStats(path string) (eval.Stats, error) {
	dir, err := evalIsDir(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return eval.Stats{}, err
	}
	switch {
	case dir:
		return eval.Stats{}, usagef("%s: image folders need a feature network (not available yet); pass .npz statistics", path)
	case !strings.EqualFold(filepath.Ext(path), ".npz"):
		return eval.Stats{}, usagef("%s: not a .npz statistics file (images, IDX files and checkpoints need a feature network, not available yet)", path)
	}
	return eval.ReadStats(path)
}
