package experiment

// Drawing images from a generator checkpoint, as positgan sample does:
// the grid's noise (gan.GridNoise) and the image files.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/imageio"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// ErrNotGenerator is the error of Sample for a checkpoint of a model
// that does not make images from noise.
var ErrNotGenerator = errors.New("the model does not make images from noise")

// A ClassError says that a class asked of Sample is no class of the
// model: Class is neither -1 (all classes) nor in [0, Classes).
type ClassError struct{ Class, Classes int }

func (e *ClassError) Error() string {
	if e.Classes == 0 {
		return fmt.Sprintf("experiment: class %d: the model has no classes", e.Class)
	}
	return fmt.Sprintf("experiment: class %d: want 0 to %d, or -1 for one row per class", e.Class, e.Classes-1)
}

// CheckClass returns a *ClassError unless class is -1 (one row per class)
// or a class of the generator spec describes.
func CheckClass(class int, spec gan.GeneratorSpec) error {
	if class == -1 || (class >= 0 && class < spec.Classes) {
		return nil
	}
	return &ClassError{Class: class, Classes: spec.Classes}
}

// Samples are images a generator checkpoint drew (Sample).
type Samples struct {
	Images     []float32 // (N, C, H, W), values in [-1, 1]
	Labels     []int     // each image's class; nil for an unconditional model
	Rows, Cols int       // the grid's shape (gan.GridNoise)
	Shape      datasets.Shape
	Step       int            // the checkpoint's
	Policy     *policy.Policy // the policy the generator ran in; nil: the checkpoint's has none
	BatchStats bool           // normalised by the batch's statistics
}

// Sample draws the grid of n images (gan.GridNoise, with seed and class)
// of the generator checkpoint c holds, run in policy pol (nil: the
// checkpoint's). A checkpoint of a model that does not make images from
// noise is ErrNotGenerator, a class the model does not have a
// *ClassError.
func Sample(c *ckpt.Checkpoint, pol *policy.Policy, n int, seed uint64, class int, o gan.SampleOptions) (*Samples, error) {
	return sample(c, pol, class, o, func(spec gan.GeneratorSpec, s *Samples) ([]float32, error) {
		var z []float32
		z, s.Labels, s.Rows, s.Cols = gan.GridNoise(spec, n, seed, class)
		return z, nil
	})
}

// sample loads the generator checkpoint c holds, in policy pol (nil: the
// checkpoint's), checks class, and draws the images of the latent vectors
// draw returns for the generator's spec; draw also sets the samples'
// labels and grid. Sample and SampleNoise differ only in draw.
func sample(c *ckpt.Checkpoint, pol *policy.Policy, class int, o gan.SampleOptions, draw func(gan.GeneratorSpec, *Samples) ([]float32, error)) (*Samples, error) {
	m, _, err := models.Load(c, pol)
	if err != nil {
		return nil, err
	}
	st, err := gan.ReadState(c)
	if err != nil {
		return nil, err
	}
	gm, ok := m.Model.(gan.Generator)
	if !ok {
		return nil, ErrNotGenerator
	}
	spec := gm.Generator()
	if err := CheckClass(class, spec); err != nil {
		return nil, err
	}
	s := &Samples{Shape: spec.Image, Step: st.Step, Policy: st.Options.Policy, BatchStats: o.BatchStats || m.BatchStats}
	if pol != nil {
		s.Policy = pol
	}
	z, err := draw(spec, s)
	if err != nil {
		return nil, err
	}
	n := len(z) / spec.ZSize()
	sm, err := gan.NewSampler(m, n, o)
	if err != nil {
		return nil, err
	}
	s.Images = make([]float32, n*spec.Image.Size())
	if err := sm.Generate(s.Images, z, s.Labels); err != nil {
		return nil, err
	}
	return s, nil
}

// Len returns the number of images.
func (s *Samples) Len() int { return len(s.Images) / s.Shape.Size() }

// WriteFiles writes each image to dir as a PNG file named by its index
// and, for a conditional model, class: 00000.png, or 00000_class3.png,
// as pytorch-fid and positgan classify read them.
func (s *Samples) WriteFiles(dir string) error {
	sz := s.Shape.Size()
	for i := range s.Len() {
		name := fmt.Sprintf("%05d.png", i)
		if s.Labels != nil {
			name = fmt.Sprintf("%05d_class%d.png", i, s.Labels[i])
		}
		if err := imageio.Save(filepath.Join(dir, name), ImageOf(s.Images[i*sz:(i+1)*sz], s.Shape)); err != nil {
			return err
		}
	}
	return nil
}

// Write writes the outputs that are asked for, in this order: each image
// to the folder dir (WriteFiles), the grid to the PNG file grid
// (gan.WriteGrid) and the float32 images to the .npy file npy
// (WriteOutputsNPY); an empty name writes nothing. It returns a
// description of each output written, e.g. "64 image files in out" and
// "grid.png: 64 images (8x8 grid)", for a closing message.
func (s *Samples) Write(dir, grid, npy string) (wrote []string, err error) {
	if dir != "" {
		if err := s.WriteFiles(dir); err != nil {
			return wrote, err
		}
		wrote = append(wrote, fmt.Sprintf("%d image files in %s", s.Len(), dir))
	}
	if grid != "" {
		if err := gan.WriteGrid(grid, s.Images, s.Shape, s.Rows, s.Cols); err != nil {
			return wrote, err
		}
		wrote = append(wrote, fmt.Sprintf("%s: %s (%dx%d grid)", grid, countOf(s.Len(), "images"), s.Rows, s.Cols))
	}
	w, err := WriteOutputsNPY(npy, s.Images, s.Len(), s.Shape.C, s.Shape.H, s.Shape.W)
	if w != "" {
		wrote = append(wrote, w)
	}
	return wrote, err
}

// countOf returns n and the plural noun, made singular for n = 1: "1
// image", "2 images".
func countOf(n int, plural string) string {
	if n == 1 {
		plural = strings.TrimSuffix(plural, "s")
	}
	return strconv.Itoa(n) + " " + plural
}
