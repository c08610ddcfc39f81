package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Options says which part of a data set to load and in what shape.
// The zero value loads the training split at the data's own size.
type Options struct {
	// Split selects the training or test part. A single IDX file, or an
	// image folder without train/ and test/ subfolders, serves both.
	Split Split
	// Height and Width, if not zero, are the size every image is brought
	// to: scaled (Lanczos) to cover it, then cropped at the centre. Set
	// both or neither. Zero keeps the images' own size, which must then be
	// the same for all.
	Height, Width int
	// Channels is 1 (grayscale) or 3 (RGB); 0 keeps IDX data grayscale and
	// makes image folders RGB. Color becomes gray as the luma
	// 0.299R + 0.587G + 0.114B; gray becomes RGB by copying.
	Channels int
	// ExifOrientation turns image files upright as their EXIF orientation
	// tag says (PIL's ImageOps.exif_transpose). Off, the stored pixels
	// are used, as PIL's Image.open, pytorch-fid and torchvision do.
	ExifOrientation bool
}

func (o Options) check() error {
	if (o.Height == 0) != (o.Width == 0) || o.Height < 0 || o.Width < 0 {
		return fmt.Errorf("datasets: image size %dx%d: set both height and width, or neither", o.Height, o.Width)
	}
	if o.Channels != 0 && o.Channels != 1 && o.Channels != 3 {
		return fmt.Errorf("datasets: %d channels, want 1 or 3", o.Channels)
	}
	if o.Split != Train && o.Split != Test {
		return fmt.Errorf("datasets: bad split %v", o.Split)
	}
	return nil
}

// Load reads the data set that spec names:
//
//   - "mnist": MNIST from the Go module cache (see MNISTDir);
//   - "fashion-mnist": Fashion-MNIST from FashionMNISTDir;
//   - a directory holding the standard IDX files of the split,
//     train-images-idx3-ubyte and train-labels-idx1-ubyte or t10k-...,
//     each possibly gzipped (a .gz suffix);
//   - an IDX images file, whose labels file is found beside it under the
//     standard name (train-images-idx3-ubyte: train-labels-idx1-ubyte);
//   - any other directory: an image folder (see LoadFolder).
//
// Gzipped files are recognized by their content.
func Load(spec string, opt Options) (*Set, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	var s *Set
	var err error
	switch spec {
	case "mnist":
		s, err = LoadMNIST(opt.Split)
	case "fashion-mnist":
		s, err = LoadFashionMNIST(opt.Split)
	default:
		fi, serr := os.Stat(spec)
		switch {
		case serr != nil:
			return nil, fmt.Errorf("datasets: data set %q is neither mnist, fashion-mnist, a file nor a directory: %w", spec, serr)
		case !fi.IsDir():
			var labels string
			if labels, err = labelsBeside(spec); err == nil {
				s, err = LoadIDX(spec, labels)
			}
		case hasIDX(spec):
			s, err = loadIDXDir(spec, opt.Split, spec, nil)
		default:
			return LoadFolder(spec, opt)
		}
	}
	if err != nil {
		return nil, err
	}
	return reshape(s, opt, 1)
}

// IDX file names are prefix-images-idx3-ubyte and prefix-labels-idx1-ubyte
// with this prefix for the split; '.' instead of the '-' before idx occurs
// in the wild, and either may end in .gz.
var idxPrefixes = [...]string{Train: "train", Test: "t10k"}

// idxPair returns the images and labels files of split s in dir.
func idxPair(dir string, s Split) (images, labels string, err error) {
	find := func(kind, idx string) (string, error) {
		var tried []string
		for _, sep := range []string{"-", "."} {
			for _, gz := range []string{"", ".gz"} {
				p := filepath.Join(dir, idxPrefixes[s]+"-"+kind+sep+idx+"-ubyte"+gz)
				if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
					return p, nil
				}
				tried = append(tried, filepath.Base(p))
			}
		}
		return "", &FileError{Path: dir, Err: fmt.Errorf("no %s %s file (want one of %s): %w", s, kind, strings.Join(tried, ", "), os.ErrNotExist)}
	}
	if images, err = find("images", "idx3"); err != nil {
		return "", "", err
	}
	if labels, err = find("labels", "idx1"); err != nil {
		return "", "", err
	}
	return images, labels, nil
}

// hasIDX reports whether dir holds a file with an IDX-style name.
func hasIDX(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*idx[13]?ubyte*"))
	return len(m) > 0
}

func loadIDXDir(dir string, s Split, name string, classes []string) (*Set, error) {
	images, labels, err := idxPair(dir, s)
	if err != nil {
		return nil, err
	}
	return loadIDX(images, labels, name+" "+s.String(), classes)
}

// ErrNotDataSet is the error of Load for a file whose name is not an IDX
// images file's.
var ErrNotDataSet = errors.New("not a data set: a file must be an IDX images file named like train-images-idx3-ubyte; image sets are folders")

// labelsBeside returns the labels file that goes with the IDX images file
// at path: same directory, "images" and "idx3" replaced by "labels" and
// "idx1", gzipped or not.
func labelsBeside(path string) (string, error) {
	dir, base := filepath.Split(path)
	i := strings.LastIndex(base, "images")
	j := strings.LastIndex(base, "idx3")
	if i < 0 && j < 0 { // a CSV, a PNG...: not meant as IDX at all
		return "", &FileError{Path: path, Err: ErrNotDataSet}
	}
	if i < 0 || j < i {
		return "", &FileError{Path: path, Err: errors.New("cannot tell the labels file: want an images file named like train-images-idx3-ubyte, with train-labels-idx1-ubyte beside it")}
	}
	lb := base[:i] + "labels" + base[i+len("images"):j] + "idx1" + base[j+len("idx3"):]
	alt := strings.TrimSuffix(lb, ".gz")
	if alt == lb {
		alt += ".gz"
	}
	for _, b := range []string{lb, alt} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err == nil && !fi.IsDir() {
			return filepath.Join(dir, b), nil
		}
	}
	return "", &FileError{Path: path, Err: fmt.Errorf("no labels file beside it (want %s or %s): %w", lb, alt, os.ErrNotExist)}
}

// IsImageFolder reports whether Load reads spec as a folder of images: a
// directory that holds no IDX files.
func IsImageFolder(spec string) bool {
	if spec == "mnist" || spec == "fashion-mnist" {
		return false
	}
	fi, err := os.Stat(spec)
	return err == nil && fi.IsDir() && !hasIDX(spec)
}
