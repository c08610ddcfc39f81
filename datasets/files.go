package datasets

import (
	"errors"
	"fmt"
	"image"
	"image/color"
)

// ImageFiles returns the image files paths name, in order: a file as
// given (whatever its extension), a directory as the image files at any
// depth below it in sorted path order. Names starting with '.' are skipped
// inside directories, as are files whose extension names no image format.
// Symbolic links to directories are followed (a link back to a directory
// above it is an error), and at most MaxFolderEntries names are read
// below each directory. A directory without images is an error.
func ImageFiles(paths []string) ([]string, error) { return imageFiles(paths, MaxFolderEntries) }

// imageFiles is ImageFiles reading at most max names below each path.
func imageFiles(paths []string, max int) ([]string, error) {
	var files []string
	for _, p := range paths {
		if !isDir(p) {
			files = append(files, p)
			continue
		}
		n, err := newLister(p, max).walk(p, nil, func(q string) { files = append(files, q) })
		if err != nil {
			return nil, datasetsErr(err)
		}
		if n == 0 {
			return nil, &FileError{Path: p, Err: errors.New("no images")}
		}
	}
	return files, nil
}

// LoadFiles reads image files as a Set of one class, in the order given,
// each brought to the size and channels of opt (Height and Width are
// required; Channels 0 means RGB): scaled (Lanczos) to cover the size and
// cropped at the centre, as LoadFolder does. It also returns how many
// images had another size or channel count than opt's.
func LoadFiles(files []string, opt Options) (s *Set, converted int, err error) {
	if err := opt.check(); err != nil {
		return nil, 0, err
	}
	if opt.Height == 0 {
		return nil, 0, errors.New("datasets: LoadFiles needs a height and width")
	}
	if len(files) == 0 {
		return nil, 0, errors.New("datasets: no image files")
	}
	shape := Shape{C: opt.Channels, H: opt.Height, W: opt.Width}
	if shape.C == 0 {
		shape.C = 3
	}
	pix := make([]uint8, len(files)*shape.Size())
	changed := make([]bool, len(files))
	err = parallel(len(files), func(i int) error {
		img, err := openImage(files[i], opt.ExifOrientation)
		if err != nil {
			return err
		}
		b := img.Bounds()
		changed[i] = b.Dx() != shape.W || b.Dy() != shape.H || isGray(img) != (shape.C == 1)
		fit(pix[i*shape.Size():(i+1)*shape.Size()], img, shape)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	for _, c := range changed {
		if c {
			converted++
		}
	}
	s, err = NewSet(fmt.Sprintf("%d image files", len(files)), shape, pix, make([]int, len(files)), []string{""})
	return s, converted, err
}

// isGray reports whether img stores gray pixels.
func isGray(img image.Image) bool {
	m := img.ColorModel()
	return m == color.GrayModel || m == color.Gray16Model
}
