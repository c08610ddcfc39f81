package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MNISTFashion names the embedded default of unpaired translation:
// domain A is MNIST, domain B Fashion-MNIST (both 28x28 gray). It is a
// toy: the domains share nothing but their size, so a translation can
// only learn a mapping of strokes to garments and back.
const MNISTFashion = "mnist-fashion"

// LoadTranslation reads split opt.Split of the two domains of an unpaired
// image-to-image translation data set spec:
//
//   - MNISTFashion: MNIST (A) and Fashion-MNIST (B);
//   - a directory in the standard layout of Zhu et al.'s data sets
//     (horse2zebra, summer2winter, ...): DIR/trainA, DIR/trainB,
//     DIR/testA, DIR/testB, each a folder of JPEG or PNG images, read as
//     LoadFolder reads them (resized and centre-cropped to opt's size).
//
// A missing or empty domain folder is an error that names it.
func LoadTranslation(spec string, opt Options) (a, b *Set, err error) {
	if err := opt.check(); err != nil {
		return nil, nil, err
	}
	if spec == MNISTFashion {
		if a, err = Load("mnist", opt); err != nil {
			return nil, nil, err
		}
		if b, err = Load("fashion-mnist", opt); err != nil {
			return nil, nil, err
		}
		return a, b, nil
	}
	fi, err := os.Stat(spec)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, fmt.Errorf("datasets: unpaired data set %q: no such folder (want %s or a folder holding trainA, trainB, testA, testB)", spec, MNISTFashion)
	case err != nil:
		return nil, nil, fmt.Errorf("datasets: %w", err)
	case !fi.IsDir():
		return nil, nil, &FileError{Path: spec, Err: errors.New("not a folder (an unpaired data set is a folder holding trainA, trainB, testA, testB)")}
	}
	for _, d := range []string{"A", "B"} {
		sub := filepath.Join(spec, opt.Split.String()+d)
		if !isDir(sub) {
			return nil, nil, &FileError{Path: spec, Err: fmt.Errorf("no %s folder: an unpaired data set holds trainA, trainB, testA and testB, folders of images", filepath.Base(sub))}
		}
	}
	return LoadUnpaired(spec, opt)
}

// Augmented serves random crops and horizontal flips of the images of a
// data set (loaded at a larger size), as Zhu et al. train CycleGAN
// (images loaded at 286x286, random 256x256 crops, random flips). The
// crop and flip of sample i in epoch e depend only on the seed, i and e,
// so that a Loader (which asks for ImageAt) resumes bit for bit; Image,
// for evaluation, returns the centre crop unflipped.
type Augmented struct {
	ds    Dataset
	shape Shape
	flip  bool
	seed  uint64
	buf   []float32
}

// An EpochImager is a Dataset whose images vary from epoch to epoch:
// Loader calls ImageAt instead of Image.
type EpochImager interface {
	Dataset
	// ImageAt writes the version of image i served in epoch epoch.
	ImageAt(dst []float32, i, epoch int)
}

// Augment returns crops of h x w (at most the images' size) of ds,
// flipped at random if flip.
func Augment(ds Dataset, h, w int, flip bool, seed uint64) (*Augmented, error) {
	sh := ds.Shape()
	if h <= 0 || w <= 0 || h > sh.H || w > sh.W {
		return nil, fmt.Errorf("datasets: crops of %dx%d from images of %dx%d", h, w, sh.H, sh.W)
	}
	return &Augmented{ds: ds, shape: Shape{C: sh.C, H: h, W: w}, flip: flip, seed: seed,
		buf: make([]float32, sh.Size())}, nil
}

// Len returns the number of images.
func (a *Augmented) Len() int { return a.ds.Len() }

// Shape returns the shape of the crops.
func (a *Augmented) Shape() Shape { return a.shape }

// NumClasses returns the underlying data set's number of classes.
func (a *Augmented) NumClasses() int { return a.ds.NumClasses() }

// Label returns the label of image i.
func (a *Augmented) Label(i int) int { return a.ds.Label(i) }

// Image writes the centre crop of image i, unflipped.
func (a *Augmented) Image(dst []float32, i int) {
	sh := a.ds.Shape()
	a.crop(dst, i, (sh.H-a.shape.H)/2, (sh.W-a.shape.W)/2, false)
}

// ImageAt writes the crop and flip of image i drawn for epoch.
func (a *Augmented) ImageAt(dst []float32, i, epoch int) {
	y, x, flip := a.AugmentParams(i, epoch)
	a.crop(dst, i, y, x, flip)
}

// AugmentParams returns the crop offset and flip ImageAt uses for image i
// in epoch.
func (a *Augmented) AugmentParams(i, epoch int) (y, x int, flipped bool) {
	sh := a.ds.Shape()
	h := mix(mix(mix(a.seed^0x6175676d656e74)^uint64(i)) ^ uint64(epoch))
	y = int((h >> 32) % uint64(sh.H-a.shape.H+1))
	x = int((h & 0xffffffff >> 1) % uint64(sh.W-a.shape.W+1))
	return y, x, a.flip && h&1 == 1
}

func (a *Augmented) crop(dst []float32, i, y0, x0 int, flip bool) {
	if len(dst) != a.shape.Size() {
		panic(errLength)
	}
	sh := a.ds.Shape()
	a.ds.Image(a.buf, i)
	H, W := a.shape.H, a.shape.W
	for c := range sh.C {
		for y := range H {
			src := a.buf[c*sh.H*sh.W+(y0+y)*sh.W+x0:][:W]
			row := dst[c*H*W+y*W:][:W]
			if flip {
				for x := range W {
					row[x] = src[W-1-x]
				}
			} else {
				copy(row, src)
			}
		}
	}
}

// mix is SplitMix64's finaliser: a fixed bijection that scatters bits.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// LoadImages reads the images directly in dir (a folder of image files,
// not of class folders) as LoadFolder reads them, and returns them with
// their file names, in the same (sorted) order.
func LoadImages(dir string, opt Options) (*Set, []string, error) {
	if err := opt.check(); err != nil {
		return nil, nil, err
	}
	files, _, classes, err := listImages(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(classes) != 1 || classes[0] != filepath.Base(dir) {
		return nil, nil, &FileError{Path: dir, Err: errors.New("holds class folders, not images")}
	}
	s, err := LoadFolder(dir, opt)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	if s.Len() != len(names) {
		return nil, nil, &FileError{Path: dir, Err: errors.New("changed while it was read")}
	}
	return s, names, nil
}

// CentreCrop returns the h x w centre crops of the images of s (what
// Augmented.Image serves), as a new Set.
func CentreCrop(s *Set, h, w int) (*Set, error) {
	sh := s.Shape()
	if h <= 0 || w <= 0 || h > sh.H || w > sh.W {
		return nil, fmt.Errorf("datasets: crops of %dx%d from images of %dx%d", h, w, sh.H, sh.W)
	}
	out := Shape{C: sh.C, H: h, W: w}
	y0, x0 := (sh.H-h)/2, (sh.W-w)/2
	pix := make([]uint8, 0, s.Len()*out.Size())
	labels := make([]int, s.Len())
	for i := range s.Len() {
		p := s.Pixels(i)
		for c := range sh.C {
			for y := range h {
				pix = append(pix, p[c*sh.H*sh.W+(y0+y)*sh.W+x0:][:w]...)
			}
		}
		labels[i] = s.Label(i)
	}
	return NewSet(s.Name(), out, pix, labels, s.Classes())
}
