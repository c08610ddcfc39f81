package gan

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/positgan/positgan/datasets"
)

// Generated is a set of images made by a generator, held in memory. It
// implements datasets.Dataset, so feature networks and FID take it as
// they take real data.
type Generated struct {
	cfg    GeneratorSpec
	pix    []float32 // (N, C, H, W), values in [-1, 1]
	labels []int     // nil for an unconditional GAN
}

// GenerateSet returns n images from the generator of nets, made batch at
// a time (batch <= 0 means 100) from latent vectors drawn with the given
// seed. For a conditional generator, image i has class i mod Classes, so
// every class has n/Classes images (one more for the first n mod Classes
// classes). With the default options batch norm uses its running
// statistics and an image does not depend on the batch it is made in;
// with o.BatchStats (or networks without running statistics) it does, and
// FIDs are comparable only between sets made with the same batch size.
// The same networks, n, seed and batch give the same bits.
func GenerateSet(nets *Nets, n int, seed uint64, batch int, o SampleOptions) (*Generated, error) {
	gm, ok := nets.Model.(Generator)
	if !ok {
		return nil, fmt.Errorf("gan: the model does not make images from noise")
	}
	if n <= 0 {
		return nil, fmt.Errorf("gan: generating %d images, want at least 1", n)
	}
	if batch <= 0 {
		batch = 100
	}
	c := gm.Generator()
	z, labels := EvalNoise(c, seed, n)
	size := c.Image.Size()
	g := &Generated{cfg: c, pix: make([]float32, n*size), labels: labels}
	var s *Sampler
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		if s == nil || k != s.n {
			var err error
			if s, err = NewSampler(nets, k, o); err != nil {
				return nil, err
			}
		}
		var lab []int
		if labels != nil {
			lab = labels[i : i+k]
		}
		if err := s.Generate(g.pix[i*size:(i+k)*size], z[i*c.ZSize():(i+k)*c.ZSize()], lab); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// NewGenerated returns images made by a generator described by c, (N, C,
// H, W) with values in [-1, 1], and their labels (nil for an
// unconditional generator), as a data set. It keeps the slices.
func NewGenerated(c GeneratorSpec, images []float32, labels []int) *Generated {
	return &Generated{cfg: c, pix: images, labels: labels}
}

// EvalNoise returns the latent vectors (n·ZDim values) and, for a
// conditional GAN, the labels (i mod Classes) of n evaluation images
// drawn with seed. The stream is distinct from FixedNoise's, so FIDs are
// not measured on the images of the sample grids.
func EvalNoise(c GeneratorSpec, seed uint64, n int) (z []float32, labels []int) {
	r := rand.New(rand.NewPCG(seed, seedFor(seed, "evaluation noise")))
	z = make([]float32, n*c.ZSize())
	for i := range z {
		z[i] = float32(r.NormFloat64())
	}
	if c.Classes > 0 {
		labels = make([]int, n)
		for i := range labels {
			labels[i] = i % c.Classes
		}
	}
	return z, labels
}

var errGeneratedLength = errors.New("gan: Generated.Image: slice length mismatch")

// Len returns the number of images.
func (g *Generated) Len() int { return len(g.pix) / g.cfg.Image.Size() }

// Shape returns the shape of every image.
func (g *Generated) Shape() datasets.Shape { return g.cfg.Image }

// NumClasses returns the generator's number of classes (1 if unconditional).
func (g *Generated) NumClasses() int { return max(g.cfg.Classes, 1) }

// Image writes image i to dst in (C, H, W) order, values in [-1, 1].
func (g *Generated) Image(dst []float32, i int) {
	n := g.cfg.Image.Size()
	if len(dst) != n {
		panic(errGeneratedLength)
	}
	copy(dst, g.pix[i*n:(i+1)*n])
}

// Label returns the class image i was generated for (0 if unconditional).
func (g *Generated) Label(i int) int {
	if g.labels == nil {
		return 0
	}
	return g.labels[i]
}

// Images returns all images, (N, C, H, W). The caller must not modify them.
func (g *Generated) Images() []float32 { return g.pix }
