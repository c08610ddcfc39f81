package eval

// Image files and folders as positgan eval psnr and ssim pair them: two
// files, or the same-named images of two folders.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ImageExts returns the extensions of the files ImageFiles and PairFiles
// take from a folder, lower case.
func ImageExts() []string {
	return []string{".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff"}
}

// ImageNames returns the sorted names of the image files (by ImageExts,
// in any case) directly in dir.
func ImageNames(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range es {
		if e.Type()&fs.ModeType == 0 && slices.Contains(ImageExts(), strings.ToLower(filepath.Ext(e.Name()))) {
			names = append(names, e.Name())
		}
	}
	return names, nil // ReadDir sorts by name
}

// ImageFiles returns the image files path names: path itself if it is a
// file, or the image files directly in the folder path (ImageNames,
// joined to path), with isDir true; a folder without images gives none.
func ImageFiles(path string) (files []string, isDir bool, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if !fi.IsDir() {
		return []string{path}, false, nil
	}
	names, err := ImageNames(path)
	for _, n := range names {
		files = append(files, filepath.Join(path, n))
	}
	return files, true, err
}

// ErrFileAndFolder is the error PairFiles wraps when one of its paths is
// a folder and the other a file.
var ErrFileAndFolder = errors.New("one is a folder, the other a file")

// A Pair is an image of each of two image sets: their files and the name
// they are reported by.
type Pair struct{ Name, A, B string }

// PairFiles pairs the images of a and b: two image files, or the
// same-named image files of two folders, in the order of their names. A
// name in one folder only is an error, and so are folders without
// images.
func PairFiles(a, b string) ([]Pair, error) {
	var isDir [2]bool
	for i, p := range []string{a, b} {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		isDir[i] = fi.IsDir()
	}
	switch {
	case isDir[0] != isDir[1]:
		return nil, fmt.Errorf("%s and %s: %w", a, b, ErrFileAndFolder)
	case !isDir[0]:
		return []Pair{{filepath.Base(a), a, b}}, nil
	}
	fa, _, err := ImageFiles(a)
	if err != nil {
		return nil, err
	}
	fb, _, err := ImageFiles(b)
	if err != nil {
		return nil, err
	}
	na, nb := baseNames(fa), baseNames(fb)
	if n, ok := firstMissing(na, nb); ok {
		return nil, fmt.Errorf("%s is in %s but not in %s", n, a, b)
	}
	if n, ok := firstMissing(nb, na); ok {
		return nil, fmt.Errorf("%s is in %s but not in %s", n, b, a)
	}
	if len(na) == 0 {
		return nil, fmt.Errorf("no images (%s) in %s", strings.Join(ImageExts(), " "), a)
	}
	pairs := make([]Pair, len(na))
	for i, n := range na {
		pairs[i] = Pair{n, fa[i], fb[i]}
	}
	return pairs, nil
}

// ComparePairs returns m's figure of each pair (ComparePairFiles, B
// against A) and their mean.
func ComparePairs(m PairMetric, pairs []Pair, o Options) (vals []float64, mean float64, err error) {
	vals = make([]float64, len(pairs))
	var sum float64
	for i, p := range pairs {
		if vals[i], err = ComparePairFiles(m, p.A, p.B, o); err != nil {
			return nil, 0, err
		}
		sum += vals[i]
	}
	return vals, sum / float64(len(vals)), nil
}

func baseNames(files []string) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return names
}

// firstMissing returns the first name of sorted a that is not in sorted b.
func firstMissing(a, b []string) (string, bool) {
	for _, n := range a {
		if _, ok := slices.BinarySearch(b, n); !ok {
			return n, true
		}
	}
	return "", false
}
