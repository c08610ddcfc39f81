package gan

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
)

// Sampler runs a GAN's generator alone on batches of a fixed size, in its
// own graph over the GAN's parameter tensors.
type Sampler struct {
	cfg  models.Config
	n    int
	z, y []float32
	out  *gorgonia.Node
	m    gorgonia.VM
}

// NewSampler returns a sampler of n images at a time from m's generator.
func NewSampler(m *models.GAN, n int) (s *Sampler, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the sampling graph: %v", r)
		}
	}()
	c := m.Config
	g := gorgonia.NewGraph()
	s = &Sampler{cfg: c, n: n}
	var z, y *gorgonia.Node
	z, s.z = input(g, "z", c.ZShape(n))
	if c.Classes > 0 {
		y, s.y = input(g, "y", tensor.Shape{n, c.Classes})
	}
	if s.out, err = m.G.Share(g).Fwd(z, y); err != nil {
		return nil, err
	}
	s.m = gorgonia.NewTapeMachine(g)
	return s, nil
}

// Generate writes to dst the images G makes from the latent vectors z
// (n·ZDim values) and labels (n classes; nil for an unconditional GAN),
// in (N, C, H, W) order with values in [-1, 1].
func (s *Sampler) Generate(dst, z []float32, labels []int) error {
	if len(z) != len(s.z) || len(dst) != s.n*s.cfg.ImageSize() || (s.cfg.Classes > 0 && len(labels) != s.n) {
		panic("gan: Generate: slice lengths do not match the sampler")
	}
	copy(s.z, z)
	oneHot(s.y, labels, s.cfg.Classes)
	defer s.m.Reset()
	if err := s.m.RunAll(); err != nil {
		return fmt.Errorf("gan: generating: %w", err)
	}
	copy(dst, s.out.Value().Data().([]float32))
	return nil
}

// FixedNoise returns the latent vectors and labels of the sample grids of a
// run with the given seed: for a conditional GAN, rows rows of cols
// images, row r of class r mod Classes; otherwise rows·cols images. The
// same seed gives the same noise, so grids of one run are comparable
// across steps and grids of runs in different policies are comparable
// image by image.
func FixedNoise(c models.Config, seed uint64, rows, cols int) (z []float32, labels []int) {
	n := rows * cols
	r := rand.New(rand.NewPCG(seed, seedFor(seed, "fixed noise")))
	z = make([]float32, n*c.ZDim)
	for i := range z {
		z[i] = float32(r.NormFloat64())
	}
	if c.Classes > 0 {
		labels = make([]int, n)
		for i := range labels {
			labels[i] = (i / cols) % c.Classes
		}
	}
	return z, labels
}

// GridShape returns the rows and columns of the sample grid for n images
// (conditional GANs: one row per class, n rounded up to a multiple of
// the number of classes).
func GridShape(c models.Config, n int) (rows, cols int) {
	if c.Classes > 0 {
		cols = max(1, (n+c.Classes-1)/c.Classes)
		return c.Classes, cols
	}
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	rows = (n + cols - 1) / cols
	return rows, cols
}

// WriteGrid writes images (N, C, H, W, values in [-1, 1]) as a PNG grid of
// rows by cols tiles separated by 2-pixel gaps, atomically.
func WriteGrid(path string, images []float32, c models.Config, rows, cols int) error {
	img := Grid(images, c, rows, cols)
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// Grid returns the images as a grid image (see WriteGrid); tiles past the
// end of images stay black.
func Grid(images []float32, c models.Config, rows, cols int) image.Image {
	const gap = 2
	H, W, C := c.Height, c.Width, c.Channels
	size := c.ImageSize()
	n := len(images) / size
	w, h := cols*(W+gap)+gap, rows*(H+gap)+gap
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0
	}
	for p := 3; p < len(img.Pix); p += 4 {
		img.Pix[p] = 255
	}
	pix := func(v float32) uint8 {
		x := math.Round((float64(v) + 1) * 127.5)
		return uint8(max(0, min(255, x)))
	}
	for k := 0; k < n && k < rows*cols; k++ {
		im := images[k*size : (k+1)*size]
		x0, y0 := gap+(k%cols)*(W+gap), gap+(k/cols)*(H+gap)
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				var col color.RGBA
				if C == 1 {
					v := pix(im[y*W+x])
					col = color.RGBA{v, v, v, 255}
				} else {
					col = color.RGBA{pix(im[y*W+x]), pix(im[H*W+y*W+x]), pix(im[2*H*W+y*W+x]), 255}
				}
				img.SetRGBA(x0+x, y0+y, col)
			}
		}
	}
	return img
}
