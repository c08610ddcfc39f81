package datasets

import (
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/disintegration/imaging"
)

// LoadFolder reads a folder of images. If dir has a train/ or test/
// subfolder, the one opt.Split names is read instead. Inside, either each
// subfolder is a class (classes numbered in sorted name order, images found
// at any depth below) or the images lie directly in the folder (one class).
// Files and folders whose names start with '.' are skipped, as are files
// whose extension names no image format (imaging reads JPEG, PNG, GIF, TIFF
// and BMP); a file with an image extension that does not decode is an
// error. Symbolic links to folders are followed (a link back to a folder
// above it is an error), and at most MaxFolderEntries names are read.
// Transparency is dropped. See Options for the size and channels.
func LoadFolder(dir string, opt Options) (*Set, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	for _, sub := range []string{"train", "test"} {
		if isDir(filepath.Join(dir, sub)) {
			dir = filepath.Join(dir, opt.Split.String())
			break
		}
	}
	files, labels, classes, err := listImages(dir)
	if err != nil {
		return nil, err
	}
	c := opt.Channels
	if c == 0 {
		c = 3
	}
	shape := Shape{C: c, H: opt.Height, W: opt.Width}
	if shape.H == 0 {
		// Each image keeps its size, which the first one sets.
		img, err := openImage(files[0], opt.ExifOrientation)
		if err != nil {
			return nil, err
		}
		shape.H, shape.W = img.Bounds().Dy(), img.Bounds().Dx()
	}
	if err := checkSetSize(dir, len(files), shape); err != nil {
		return nil, err
	}
	pix := make([]uint8, len(files)*shape.Size())
	err = parallel(len(files), func(i int) error {
		img, err := openImage(files[i], opt.ExifOrientation)
		if err != nil {
			return err
		}
		if opt.Height == 0 {
			if b := img.Bounds(); b.Dy() != shape.H || b.Dx() != shape.W {
				return &FileError{Path: files[i], Err: FormatError(fmt.Sprintf(
					"size %dx%d differs from %dx%d of %s; give a height and width to resize to",
					b.Dy(), b.Dx(), shape.H, shape.W, files[0]))}
			}
		}
		fit(pix[i*shape.Size():(i+1)*shape.Size()], img, shape)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return NewSet(dir, shape, pix, labels, classes)
}

// LoadDomains reads two image folders, domains A and B of an unpaired
// translation task (CycleGAN), with LoadFolder. The two must have the same
// image shape. Serve them with two Loaders of different seeds, so that the
// pairs drawn are unrelated.
func LoadDomains(dirA, dirB string, opt Options) (a, b *Set, err error) {
	if a, err = LoadFolder(dirA, opt); err != nil {
		return nil, nil, err
	}
	if b, err = LoadFolder(dirB, opt); err != nil {
		return nil, nil, err
	}
	if a.Shape() != b.Shape() {
		return nil, nil, fmt.Errorf("datasets: domain A (%s) has images of %v, domain B (%s) of %v; give a height and width to resize to",
			dirA, a.Shape(), dirB, b.Shape())
	}
	return a, b, nil
}

// LoadUnpaired reads an unpaired translation data set laid out as
// CycleGAN's are: dir/trainA, dir/trainB, dir/testA, dir/testB. opt.Split
// picks train or test.
func LoadUnpaired(dir string, opt Options) (a, b *Set, err error) {
	p := filepath.Join(dir, opt.Split.String())
	return LoadDomains(p+"A", p+"B", opt)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") }

func isImage(name string) bool {
	_, err := imaging.FormatFromFilename(name)
	return err == nil
}

// listImages returns the image files of an image folder (see LoadFolder),
// their labels and the class names.
func listImages(dir string) (files []string, labels []int, classes []string, err error) {
	return listImagesMax(dir, MaxFolderEntries)
}

// listImagesMax is listImages reading at most max names.
func listImagesMax(dir string, max int) (files []string, labels []int, classes []string, err error) {
	l := newLister(dir, max)
	entries, err := l.readDir(dir) // sorted by name
	if err != nil {
		return nil, nil, nil, datasetsErr(err)
	}
	var flat []string
	for _, e := range entries {
		switch {
		case hidden(e.Name()):
		case e.IsDir() || (e.Type()&fs.ModeSymlink != 0 && isDir(filepath.Join(dir, e.Name()))):
			classes = append(classes, e.Name())
		case isImage(e.Name()):
			flat = append(flat, filepath.Join(dir, e.Name()))
		}
	}
	if len(classes) > 0 && len(flat) > 0 {
		return nil, nil, nil, &FileError{Path: dir, Err: FormatError(fmt.Sprintf(
			"holds both images (%s) and class folders (%s); put the images in a class folder", filepath.Base(flat[0]), classes[0]))}
	}
	if len(classes) == 0 {
		if len(flat) == 0 {
			return nil, nil, nil, &FileError{Path: dir, Err: errors.New("no images and no class folders")}
		}
		return flat, make([]int, len(flat)), []string{filepath.Base(dir)}, nil
	}
	for k, c := range classes {
		root := filepath.Join(dir, c)
		n, err := l.walk(root, []string{dir}, func(p string) {
			files = append(files, p)
			labels = append(labels, k)
		})
		if err != nil {
			return nil, nil, nil, datasetsErr(err)
		}
		if n == 0 {
			return nil, nil, nil, &FileError{Path: root, Err: errors.New("class folder without images")}
		}
	}
	return files, labels, classes, nil
}

// datasetsErr returns err, a *FileError already naming the package, or
// err wrapped so that it does.
func datasetsErr(err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("datasets: %w", err)
}

// parallel runs f(0), ..., f(n-1) on GOMAXPROCS goroutines and returns the
// error of the lowest i that failed, so that the error does not depend on
// scheduling.
func parallel(n int, f func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return firstErr(errs)
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fit writes img to dst in (C, H, W) order at the size and channels of
// shape: scaled (Lanczos) to cover H×W and cropped at the centre if its
// size differs, made gray or RGB, alpha dropped.
func fit(dst []uint8, img image.Image, shape Shape) {
	if b := img.Bounds(); b.Dx() != shape.W || b.Dy() != shape.H {
		img = imaging.Fill(img, shape.W, shape.H, imaging.Center, imaging.Lanczos)
	}
	m, ok := img.(*image.NRGBA)
	switch {
	case shape.C == 1:
		m = imaging.Grayscale(img)
	case !ok || m.Rect.Min != (image.Point{}):
		m = imaging.Clone(img)
	}
	plane := shape.H * shape.W
	for y := range shape.H {
		row := m.Pix[y*m.Stride : y*m.Stride+4*shape.W]
		for x := range shape.W {
			for c := range shape.C {
				dst[c*plane+y*shape.W+x] = row[4*x+c]
			}
		}
	}
}

// reshape brings every image of s to the size and channels opt asks for;
// def is the number of channels when opt gives none.
func reshape(s *Set, opt Options, def int) (*Set, error) {
	want := s.shape
	if opt.Height != 0 {
		want.H, want.W = opt.Height, opt.Width
	}
	want.C = opt.Channels
	if want.C == 0 {
		want.C = def
	}
	if want == s.shape {
		return s, nil
	}
	if err := checkSetSize(s.name, s.Len(), want); err != nil {
		return nil, err
	}
	pix := make([]uint8, s.Len()*want.Size())
	_ = parallel(s.Len(), func(i int) error {
		fit(pix[i*want.Size():(i+1)*want.Size()], s.asImage(i), want)
		return nil
	})
	labels := make([]int, s.Len())
	for i := range labels {
		labels[i] = s.Label(i)
	}
	return NewSet(s.name, want, pix, labels, s.classes)
}

// asImage returns sample i as an image (gray for one channel, RGB for
// three).
func (s *Set) asImage(i int) image.Image {
	p := s.Pixels(i)
	h, w := s.shape.H, s.shape.W
	r := image.Rect(0, 0, w, h)
	if s.shape.C == 1 {
		return &image.Gray{Pix: p, Stride: w, Rect: r}
	}
	m := image.NewNRGBA(r)
	plane := h * w
	for j := range plane {
		for c := range 3 {
			m.Pix[4*j+c] = p[c*plane+j]
		}
		m.Pix[4*j+3] = 255
	}
	return m
}
