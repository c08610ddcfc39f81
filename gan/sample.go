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

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
)

// Generator is a model whose network makes images from latent noise and,
// if conditional, class labels: CGAN and DCGAN. Sample grids, generated
// image sets (FID) and inspection work with any Generator.
type Generator interface {
	Model
	Generator() GeneratorSpec
}

// GeneratorSpec describes a Generator's image-making network.
type GeneratorSpec struct {
	Net     string         // the group whose network makes images, e.g. "G"
	Z       []int          // the shape of one latent vector, e.g. (100) or (100, 1, 1)
	Classes int            // > 0: conditional on one-hot labels of this many classes
	Image   datasets.Shape // the images it makes, values in [-1, 1]
}

// ZSize returns the number of values of one latent vector.
func (s GeneratorSpec) ZSize() int {
	n := 1
	for _, d := range s.Z {
		n *= d
	}
	return n
}

// SampleOptions say how a Sampler evaluates.
type SampleOptions struct {
	// BatchStats normalises every batch by its own statistics (batch norm
	// in training mode), as the reference DCGAN code evaluates: an image
	// then depends on the batch it is made in. The default uses the
	// running statistics, as PyTorch's eval mode does.
	BatchStats bool
}

// Sampler runs a generator alone on batches of a fixed size, in its own
// graph over the networks' parameter tensors.
type Sampler struct {
	spec GeneratorSpec
	n    int
	z, y []float32
	out  *gorgonia.Node
	m    *graphexec.Program
}

// NewSampler returns a sampler of n images at a time from the generator
// of nets (whose Model must be a Generator).
func NewSampler(nets *Nets, n int, o SampleOptions) (s *Sampler, err error) {
	gm, ok := nets.Model.(Generator)
	if !ok {
		return nil, fmt.Errorf("gan: the model does not make images from noise")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the sampling graph: %v", r)
		}
	}()
	spec := gm.Generator()
	net := nets.Net(spec.Net)
	if net == nil {
		return nil, fmt.Errorf("gan: the model has no network %q", spec.Net)
	}
	g := gorgonia.NewGraph()
	s = &Sampler{spec: spec, n: n}
	var z, y *gorgonia.Node
	z, s.z = input(g, "z", append(tensor.Shape{n}, spec.Z...))
	if spec.Classes > 0 {
		y, s.y = input(g, "y", tensor.Shape{n, spec.Classes})
	}
	gen := net.Share(g)
	nn.SetTraining(gen, o.BatchStats || nets.BatchStats)
	if s.out, err = gen.Forward(&nn.Pass{Cond: y, FreezeStats: true}, z); err != nil {
		return nil, err
	}
	if s.m, err = graphexec.Compile(s.out); err != nil {
		return nil, fmt.Errorf("gan: sampler: %w", err)
	}
	s.m.Recycle() // only the images are read (see graphexec.Program.Recycle)
	return s, nil
}

func input(g *gorgonia.ExprGraph, name string, shape tensor.Shape) (*gorgonia.Node, []float32) {
	t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
	return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name)), t.Data().([]float32)
}

// Generate writes to dst the images the generator makes from the latent
// vectors z (n·ZSize values) and labels (n classes; nil for an
// unconditional generator), in (N, C, H, W) order with values in [-1, 1].
func (s *Sampler) Generate(dst, z []float32, labels []int) error {
	if len(z) != len(s.z) || len(dst) != s.n*s.spec.Image.Size() || (s.spec.Classes > 0 && len(labels) != s.n) {
		panic("gan: Generate: slice lengths do not match the sampler")
	}
	copy(s.z, z)
	OneHot(s.y, labels, s.spec.Classes)
	if err := s.m.Run(); err != nil {
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
func FixedNoise(c GeneratorSpec, seed uint64, rows, cols int) (z []float32, labels []int) {
	n := rows * cols
	r := rand.New(rand.NewPCG(seed, seedFor(seed, "fixed noise")))
	z = make([]float32, n*c.ZSize())
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
func GridShape(c GeneratorSpec, n int) (rows, cols int) {
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
func WriteGrid(path string, images []float32, c datasets.Shape, rows, cols int) error {
	return writePNG(path, Grid(images, c, rows, cols))
}

// writePNG writes img as a PNG file, atomically.
func writePNG(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// Pixel8 returns the 8-bit value of v in [-1, 1], as the sample grids and
// image files show it: (v+1)·127.5 rounded, clamped to [0, 255].
func Pixel8(v float32) uint8 {
	x := math.Round((float64(v) + 1) * 127.5)
	return uint8(max(0, min(255, x)))
}

// Grid returns the images as a grid image (see WriteGrid); tiles past the
// end of images stay black.
func Grid(images []float32, c datasets.Shape, rows, cols int) image.Image {
	const gap = 2
	H, W, C := c.H, c.W, c.C
	size := c.Size()
	n := len(images) / size
	w, h := cols*(W+gap)+gap, rows*(H+gap)+gap
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0
	}
	for p := 3; p < len(img.Pix); p += 4 {
		img.Pix[p] = 255
	}
	for k := 0; k < n && k < rows*cols; k++ {
		im := images[k*size : (k+1)*size]
		x0, y0 := gap+(k%cols)*(W+gap), gap+(k/cols)*(H+gap)
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				var col color.RGBA
				if C == 1 {
					v := Pixel8(im[y*W+x])
					col = color.RGBA{v, v, v, 255}
				} else {
					col = color.RGBA{Pixel8(im[y*W+x]), Pixel8(im[H*W+y*W+x]), Pixel8(im[2*H*W+y*W+x]), 255}
				}
				img.SetRGBA(x0+x, y0+y, col)
			}
		}
	}
	return img
}
