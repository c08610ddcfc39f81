package datasets

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
)

// SRPhotos names the embedded default of super-resolution training: the
// natural photographs that Debian packages install (nothing is
// downloaded or copied into the repository), each used at its own size.
// The training split is SRTrainFiles, the test split SRTestFiles (the
// butterfly of Set5 and the baboon of Set14, kept apart for evaluation).
// Files that are not installed are skipped. docs/training.md records the
// packages and licences.
const SRPhotos = "sr-photos"

// SRTrainFiles are the training photographs of SRPhotos: from
// python3-skimage (public domain or CC0, as skimage.data documents them)
// and opencv-doc (the OpenCV samples, under OpenCV's licence in Debian's
// copyright file).
var SRTrainFiles = []string{
	"/usr/lib/python3/dist-packages/skimage/data/astronaut.png",
	"/usr/lib/python3/dist-packages/skimage/data/chelsea.png",
	"/usr/lib/python3/dist-packages/skimage/data/coffee.png",
	"/usr/lib/python3/dist-packages/skimage/data/rocket.jpg",
	"/usr/lib/python3/dist-packages/skimage/data/hubble_deep_field.jpg",
	"/usr/share/doc/opencv-doc/examples/data/fruits.jpg",
	"/usr/share/doc/opencv-doc/examples/data/home.jpg",
	"/usr/share/doc/opencv-doc/examples/data/building.jpg",
	"/usr/share/doc/opencv-doc/examples/data/orange.jpg",
	"/usr/share/doc/opencv-doc/examples/data/apple.jpg",
	"/usr/share/doc/opencv-doc/examples/data/squirrel_cls.jpg",
	"/usr/share/doc/opencv-doc/examples/data/HappyFish.jpg",
	"/usr/share/doc/opencv-doc/examples/data/aero1.jpg",
	"/usr/share/doc/opencv-doc/examples/data/stuff.jpg",
	"/usr/share/doc/opencv-doc/examples/data/smarties.png",
	"/usr/share/doc/opencv-doc/examples/data/rubberwhale1.png",
	"/usr/share/doc/opencv-doc/examples/data/graf1.png",
	"/usr/share/doc/opencv-doc/examples/data/board.jpg",
}

// SRTestFiles are the held-out evaluation photographs of SRPhotos, from
// opencv-doc: butterfly.png of its super-resolution sample (Set5's
// butterfly, 256x256) and baboon.jpg (Set14's baboon, as a 512x512 JPEG:
// not the PNG of Set14, so figures on it are not comparable to papers').
var SRTestFiles = []string{
	"/usr/share/doc/opencv-doc/examples/dnn_superres/butterfly.png",
	"/usr/share/doc/opencv-doc/examples/data/baboon.jpg",
}

// Photos are RGB images of any sizes, held as 8-bit planes.
type Photos struct {
	names []string
	sizes []image.Point // (W, H)
	pix   [][]uint8     // (3, H, W) each
}

// LoadPhotos reads split of a super-resolution data set spec at the
// images' own sizes: SRPhotos, a folder of images (DIV2K-style: PNG or
// JPEG at any size; with train/ and test/ subfolders, the one split
// names), or one image file.
func LoadPhotos(spec string, split Split) (*Photos, error) {
	var files []string
	switch {
	case spec == SRPhotos:
		list := SRTrainFiles
		if split == Test {
			list = SRTestFiles
		}
		for _, f := range list {
			if _, err := os.Stat(f); err == nil {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("datasets: %s: none of its %s images is installed (apt-get install python3-skimage opencv-doc)", SRPhotos, split)
		}
	case isDir(spec):
		dir := spec
		for _, sub := range []string{"train", "test"} {
			if isDir(filepath.Join(spec, sub)) {
				dir = filepath.Join(spec, split.String())
				break
			}
		}
		fs, _, classes, err := listImages(dir)
		if err != nil {
			return nil, err
		}
		if len(classes) != 1 || classes[0] != filepath.Base(dir) {
			return nil, &FileError{Path: dir, Err: errors.New("holds folders, not images")}
		}
		files = fs
	default:
		if _, err := os.Stat(spec); err != nil {
			return nil, fmt.Errorf("datasets: super-resolution data %q: want %s, a folder of images or an image: %w", spec, SRPhotos, err)
		}
		files = []string{spec}
	}
	p := &Photos{names: make([]string, len(files)), sizes: make([]image.Point, len(files)), pix: make([][]uint8, len(files))}
	err := parallel(len(files), func(i int) error {
		img, err := OpenImage(files[i])
		if err != nil {
			return err
		}
		m := toNRGBA(img)
		w, h := m.Rect.Dx(), m.Rect.Dy()
		pl := make([]uint8, 3*h*w)
		for y := range h {
			for x := range w {
				for c := range 3 {
					pl[c*h*w+y*w+x] = m.Pix[y*m.Stride+4*x+c]
				}
			}
		}
		p.names[i], p.sizes[i], p.pix[i] = files[i], image.Pt(w, h), pl
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Len returns the number of images.
func (p *Photos) Len() int { return len(p.names) }

// Name returns the file image i was read from.
func (p *Photos) Name(i int) string { return p.names[i] }

// Size returns the width and height of image i.
func (p *Photos) Size(i int) image.Point { return p.sizes[i] }

// Image returns image i.
func (p *Photos) Image(i int) *image.NRGBA {
	s, pl := p.sizes[i], p.pix[i]
	m := image.NewNRGBA(image.Rect(0, 0, s.X, s.Y))
	n := s.X * s.Y
	for j := range n {
		for c := range 3 {
			m.Pix[4*j+c] = pl[c*n+j]
		}
		m.Pix[4*j+3] = 255
	}
	return m
}

// Patches serves square high-resolution crops of Photos for training
// super-resolution: sample i is a crop of image i mod Len of the photos,
// at a position, flip and transposition drawn from the seed, i and the
// epoch (ESRGAN's augmentation: flips and 90° rotations), so that a
// Loader resumes bit for bit. Image (for evaluation) serves the centre
// crop unchanged.
type Patches struct {
	ph        *Photos
	size, n   int
	seed      uint64
	noAugment bool
}

// NewPatches returns n crops of size×size per epoch from ph, whose images
// must all be at least that large.
func NewPatches(ph *Photos, size, n int, seed uint64) (*Patches, error) {
	if size <= 0 || n <= 0 || ph.Len() == 0 {
		return nil, fmt.Errorf("datasets: %d patches of %d from %d images", n, size, ph.Len())
	}
	for i, s := range ph.sizes {
		if s.X < size || s.Y < size {
			return nil, &FileError{Path: ph.names[i], Err: fmt.Errorf("%dx%d is smaller than the %dx%d patches", s.X, s.Y, size, size)}
		}
	}
	return &Patches{ph: ph, size: size, n: n, seed: seed}, nil
}

// Photos returns the images the patches are cut from.
func (p *Patches) Photos() *Photos { return p.ph }

// Len returns the number of patches per epoch.
func (p *Patches) Len() int { return p.n }

// Shape returns the patches' shape, 3 x size x size.
func (p *Patches) Shape() Shape { return Shape{C: 3, H: p.size, W: p.size} }

// NumClasses returns 1.
func (p *Patches) NumClasses() int { return 1 }

// Label returns 0.
func (p *Patches) Label(int) int { return 0 }

// Image writes the centre crop of the image of sample i.
func (p *Patches) Image(dst []float32, i int) {
	s := p.ph.sizes[i%p.ph.Len()]
	p.crop(dst, i, (s.Y-p.size)/2, (s.X-p.size)/2, 0)
}

// ImageAt writes the crop of sample i drawn for epoch.
func (p *Patches) ImageAt(dst []float32, i, epoch int) {
	y, x, t := p.PatchParams(i, epoch)
	p.crop(dst, i, y, x, t)
}

// PatchParams returns the crop offset of sample i in epoch and its
// transform: bit 0 flips left-right, bit 1 flips top-bottom, bit 2
// transposes.
func (p *Patches) PatchParams(i, epoch int) (y, x, transform int) {
	s := p.ph.sizes[i%p.ph.Len()]
	h := mix(mix(mix(p.seed^0x7061746368)^uint64(i)) ^ uint64(epoch))
	y = int((h >> 32) % uint64(s.Y-p.size+1))
	x = int((h & 0xffffffff >> 3) % uint64(s.X-p.size+1))
	return y, x, int(h & 7)
}

func (p *Patches) crop(dst []float32, i, y0, x0, t int) {
	n := p.size
	if len(dst) != 3*n*n {
		panic(errLength)
	}
	k := i % p.ph.Len()
	s, pl := p.ph.sizes[k], p.ph.pix[k]
	for c := range 3 {
		src := pl[c*s.X*s.Y:]
		out := dst[c*n*n : (c+1)*n*n]
		for y := range n {
			for x := range n {
				sy, sx := y, x
				if t&4 != 0 {
					sy, sx = sx, sy
				}
				if t&1 != 0 {
					sx = n - 1 - sx
				}
				if t&2 != 0 {
					sy = n - 1 - sy
				}
				out[y*n+x] = toUnit[src[(y0+sy)*s.X+x0+sx]]
			}
		}
	}
}

// LowRes writes to dst the low-resolution versions of a batch of
// high-resolution images hr (each 3 x h x w, values in [-1, 1] that are
// 8-bit pixels p/127.5 - 1): shrunk by k with MATLAB's bicubic imresize
// and rounded to 8 bits, as benchmarks make them, mapped back to [-1, 1].
// h and w must be multiples of k.
func LowRes(dst, hr []float32, h, w, k int) {
	n, lh, lw := 3*h*w, h/k, w/k
	if h%k != 0 || w%k != 0 || len(hr)%n != 0 || len(dst) != len(hr)/n*3*lh*lw {
		panic(errLength)
	}
	buf := make([]float64, n)
	for b := range len(hr) / n {
		for j, v := range hr[b*n : (b+1)*n] {
			buf[j] = math.Round((float64(v) + 1) * 127.5)
		}
		lr, _, _ := Bicubic(buf, 3, h, w, 1/float64(k))
		out := dst[b*3*lh*lw : (b+1)*3*lh*lw]
		for j, v := range lr {
			out[j] = toUnit[Round8(v)]
		}
	}
}
