package featnet

import (
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // DecodeConfig of the usual image files
	_ "image/png"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/regfile"
)

// FolderOptions looks at the image files of path, if it is an image
// folder, without decoding them, for measuring them with ext (as positgan
// eval fid, stats and kid do): FeaturesOf brings every image to ext's
// input, and datasets.Load cannot read a folder of images of several
// sizes unless told a size. It returns the options to load path with (the
// network's input size when the sizes differ, so that each image is
// fitted to it) and a one-line note when the images are not of the
// network's input size and channels, naming both, to show once the figure
// is measured. For anything but an image folder, or when a file cannot be
// read (loading reports it), both are zero.
func FolderOptions(path string, ext Extractor) (datasets.Options, string) {
	if ext == nil || !datasets.IsImageFolder(path) {
		return datasets.Options{}, ""
	}
	files, err := datasets.ImageFiles([]string{path})
	if err != nil {
		return datasets.Options{}, "" // loading reports it
	}
	type size struct{ w, h int }
	var sizes []size
	colour := false
	for _, name := range files {
		cfg, ok := imageConfig(name)
		if !ok {
			return datasets.Options{}, "" // loading reports it
		}
		if s := (size{cfg.Width, cfg.Height}); !slices.Contains(sizes, s) {
			sizes = append(sizes, s)
		}
		colour = colour || (cfg.ColorModel != color.GrayModel && cfg.ColorModel != color.Gray16Model)
	}
	if len(sizes) == 0 {
		return datasets.Options{}, ""
	}
	side, gray := InceptionSize, false
	if _, ok := ext.(*Inception); !ok {
		side, gray = 28, true // the LeNet-5 networks
	}
	input := fmt.Sprintf("%dx%d", side, side)
	if gray {
		input += " gray"
	} else {
		input += " RGB"
	}
	switch {
	case len(sizes) > 1:
		var all []string
		for _, s := range sizes[:min(len(sizes), 3)] {
			all = append(all, fmt.Sprintf("%dx%d", s.w, s.h))
		}
		if len(sizes) > 3 {
			all = append(all, "...")
		}
		return datasets.Options{Height: side, Width: side},
			fmt.Sprintf("note: %s: %d images of %d sizes (%s): each centre-cropped and resized to %dx%d for %s's %s input",
				path, len(files), len(sizes), strings.Join(all, ", "), side, side, ext.Name(), input)
	case sizes[0].w != side || sizes[0].h != side || colour == gray:
		var did []string
		if sizes[0].w != side || sizes[0].h != side {
			did = append(did, "resized (bilinear)")
		}
		kind := "gray"
		if colour {
			kind = "colour"
		}
		if colour == gray {
			if gray {
				did = append(did, "made gray (luma 0.299R + 0.587G + 0.114B)")
			} else {
				did = append(did, "made RGB")
			}
		}
		return datasets.Options{}, fmt.Sprintf("note: %s: %d images of %dx%d %s, %s for %s's %s input",
			path, len(files), sizes[0].w, sizes[0].h, kind, strings.Join(did, " and "), ext.Name(), input)
	}
	return datasets.Options{}, ""
}

// imageConfig reads the size and colour model of an image file from its
// header.
func imageConfig(name string) (image.Config, bool) {
	f, _, err := regfile.Open(name) // a named pipe would block
	if err != nil {
		return image.Config{}, false
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	return cfg, err == nil
}

// SetOptions say which images of a set ImageSetFeatures measures.
type SetOptions struct {
	Split datasets.Split // of mnist, fashion-mnist and IDX directories
	N     int            // images drawn (seeded, without replacement); 0: all
	Seed  uint64         // of the draw
	// ExifOrientation turns image files upright by their EXIF tag
	// (datasets.Options.ExifOrientation).
	ExifOrientation bool
}

// ImageSetFeatures returns ext's features of the images of path (an image
// set datasets.Load reads, loaded with FolderOptions), one row per image,
// and FolderOptions' note: what positgan eval fid, stats and kid measure
// of an image set.
func ImageSetFeatures(path string, ext Extractor, o SetOptions) (*mat.Dense, string, error) {
	opt, note := FolderOptions(path, ext)
	opt.Split = o.Split
	opt.ExifOrientation = o.ExifOrientation
	var ds datasets.Dataset
	ds, err := datasets.Load(path, opt)
	if err != nil {
		return nil, "", err
	}
	if o.N > 0 {
		if ds, err = datasets.Sample(ds, o.N, o.Seed); err != nil {
			return nil, "", err
		}
	}
	f, err := FeaturesOf(ext, ds, 100)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return f, note, nil
}
