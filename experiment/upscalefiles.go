package experiment

// The folder loop of positgan upscale: every image file super-resolved,
// written and (given ground truth) scored, so that a notebook runs the
// command's study with one call.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/imageio"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// LoadUpscaler loads the generator of the esrgan checkpoint at path, to
// run in pol (nil: the checkpoint's own policy). Errors of the model name
// path.
func LoadUpscaler(path string, pol *policy.Policy) (*models.Upscaler, error) {
	c, err := ckpt.Load(path)
	if err != nil {
		return nil, err
	}
	u, err := models.NewUpscaler(c, pol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return u, nil
}

// UpscaleInputs returns the image files in names: those of a folder, one
// image file, or for datasets.SRPhotos the held-out photographs of
// datasets.SRTestFiles that are installed. A folder without images, or
// no installed photograph, is an error.
func UpscaleInputs(in string) ([]string, error) {
	if in == datasets.SRPhotos {
		var fs []string
		for _, f := range datasets.SRTestFiles {
			if _, err := os.Stat(f); err == nil {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			return nil, fmt.Errorf("%s: its held-out images are not installed (apt-get install opencv-doc)", in)
		}
		return fs, nil
	}
	fs, isDir, err := eval.ImageFiles(in)
	if err == nil && isDir && len(fs) == 0 {
		return nil, fmt.Errorf("no images in %s", in)
	}
	return fs, err
}

// UpscaleOptions say how UpscaleFiles treats its files.
type UpscaleOptions struct {
	// Tiling cuts the enlargement into tiles (models.Tiling); the zero
	// value enlarges whole images.
	Tiling models.Tiling
	// LR says that the files are low-resolution images, to be enlarged
	// only: no test is prepared, only <name>_sr.png is written and
	// nothing is scored.
	LR bool
	// NPY, if not nil, gathers each enlargement as the generator made it,
	// before rounding to 8 bits.
	NPY *NPYStack
}

// UpscaleFiles super-resolves each image file of files with u, as
// positgan upscale does, into the existing folder dir. Each file is taken
// as ground truth (UpscaleTiled): the enlargement, the bicubic baseline
// and the LR image are written (Upscaled.WriteFiles) and scored
// (Upscaled.Score). With o.LR the file is enlarged itself and only
// <name>_sr.png is written; the Upscaled then holds the name, the file's
// image as LR, and the enlargement. each is called with every image once
// it is done, in the order of files, so that results can be shown as
// they come; the images are not kept after it returns.
func UpscaleFiles(u *models.Upscaler, files []string, dir string, o UpscaleOptions, each func(*Upscaled)) error {
	k := u.Scale()
	for _, f := range files {
		img, err := datasets.OpenImage(f)
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if o.LR {
			y, err := u.EnlargeTiled(img, o.Tiling)
			if err != nil {
				return err
			}
			b := img.Bounds()
			if err := o.NPY.Add(y, 3, b.Dy()*k, b.Dx()*k); err != nil {
				return err
			}
			r := &Upscaled{SRTest: models.SRTest{Name: base, LR: img}, Scale: k, Out: y, SR: u.Image(y, b.Dy(), b.Dx())}
			if err := imageio.Save(filepath.Join(dir, base+"_sr.png"), r.SR); err != nil {
				return err
			}
			each(r)
			continue
		}
		r, err := UpscaleTiled(u, o.Tiling, base, img)
		if err != nil {
			return err
		}
		if err := r.WriteFiles(dir); err != nil {
			return err
		}
		sb := r.SR.Bounds()
		if err := o.NPY.Add(r.Out, 3, sb.Dy(), sb.Dx()); err != nil {
			return err
		}
		if err := r.Score(); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		each(r)
	}
	return nil
}

// An NPYShapeError is the error of NPYStack.Add for an output whose
// size differs from that of the outputs gathered before.
type NPYShapeError struct {
	Path         string // the stack's file
	W0, H0, W, H int    // the first outputs' size and this one's
}

func (e *NPYShapeError) Error() string {
	return fmt.Sprintf("%s: outputs of %dx%d and %dx%d pixels make no (N, C, H, W) array: give images of one size", e.Path, e.W0, e.H0, e.W, e.H)
}

// An NPYStack gathers outputs of one shape (C, H, W), one at a time, into
// an (N, C, H, W) .npy file: the --npy file of commands whose images may
// each have their own size. A nil *NPYStack, or one with no Path, gathers
// nothing.
type NPYStack struct {
	Path       string // the file Write writes
	data       []float32
	n, c, h, w int
}

// Add appends one output y of shape (c, h, w). An output of another size
// than the first is an *NPYShapeError.
func (s *NPYStack) Add(y []float32, c, h, w int) error {
	if s == nil || s.Path == "" {
		return nil
	}
	if s.n > 0 && (c != s.c || h != s.h || w != s.w) {
		return &NPYShapeError{Path: s.Path, W0: s.w, H0: s.h, W: w, H: h}
	}
	s.data = append(s.data, y...)
	s.n, s.c, s.h, s.w = s.n+1, c, h, w
	return nil
}

// Write writes the outputs gathered to Path (WriteOutputsNPY) and returns
// what it wrote, e.g. "out.npy: float32 (2, 3, 64, 64)"; "" if it gathers
// nothing.
func (s *NPYStack) Write() (string, error) {
	if s == nil {
		return "", nil
	}
	return WriteOutputsNPY(s.Path, s.data, s.n, s.c, s.h, s.w)
}

// WriteOutputsNPY writes n outputs of shape (c, h, w) to path as an (N,
// C, H, W) .npy array (WriteNPY), unless path is "", and returns what it
// wrote, e.g. "out.npy: float32 (2, 3, 64, 64)", for a closing message.
func WriteOutputsNPY(path string, data []float32, n, c, h, w int) (string, error) {
	if path == "" {
		return "", nil
	}
	if err := WriteNPY(path, data, []int{n, c, h, w}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: float32 (%d, %d, %d, %d)", path, n, c, h, w), nil
}
