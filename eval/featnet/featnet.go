package featnet

import (
	"fmt"
	"sync"

	"github.com/positgan/positgan/datasets"
	"gonum.org/v1/gonum/mat"
)

// Extractor maps images to feature vectors.
type Extractor interface {
	// Name names the network, as in "LeNet-MNIST" or "Inception-v3";
	// MetricName builds the name of the FID computed on its features.
	Name() string
	// Dim returns the number of features per image.
	Dim() int
	// Features writes the features of the images, len(images)/s.Size()
	// samples of shape s in NCHW order with values in [-1, 1], to dst,
	// one row of Dim() values per image. It returns an error if the
	// network cannot take images of that shape. len(dst) must be the
	// number of images times Dim().
	Features(dst []float64, images []float32, s datasets.Shape) error
}

// MetricName returns the name of the Fréchet distance computed on e's
// features, "FID (" + e.Name() + ")": print it wherever the number is
// printed, so that a LeNet FID is never taken for an Inception FID.
func MetricName(e Extractor) string { return "FID (" + e.Name() + ")" }

// Specs lists the feature network specs Load accepts, for help texts.
const Specs = `lenet-mnist, lenet-fashion (the shipped LeNet-5 weights), lenet:FILE (a LeNet from 'positgan lenet train'), inception:FILE (FID Inception-v3 weights: pytorch-fid's .pth or a safetensors conversion; pytorch-fid's preprocessing), inception-clean:FILE (the same in clean-fid's mode: PIL bicubic resize)`

// FeaturesOf returns the features of every image of ds, one row per image,
// computed batch images at a time: the matrix eval.StatsOf takes.
func FeaturesOf(e Extractor, ds datasets.Dataset, batch int) (*mat.Dense, error) {
	n, s := ds.Len(), ds.Shape()
	if n == 0 {
		return nil, fmt.Errorf("featnet: no images")
	}
	if batch <= 0 {
		return nil, fmt.Errorf("featnet: batch size %d, want at least 1", batch)
	}
	d := e.Dim()
	out := mat.NewDense(n, d, nil)
	raw := out.RawMatrix().Data
	buf := make([]float32, min(batch, n)*s.Size())
	for first := 0; first < n; first += batch {
		count := min(batch, n-first)
		for k := 0; k < count; k++ {
			ds.Image(buf[k*s.Size():(k+1)*s.Size()], first+k)
		}
		if err := e.Features(raw[first*d:(first+count)*d], buf[:count*s.Size()], s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Extractor returns l as a feature network: the 84 tanh activations of
// its penultimate layer, computed as its policy says (float32 for a
// network read from a file). Images of another shape are
// brought to 1×28×28 first: RGB becomes gray as the luma 0.299R + 0.587G
// + 0.114B, and another size is resized bilinearly (as Resize). Calls
// to the extractor may be concurrent (they run one at a time), but l must
// not be used otherwise meanwhile.
func (l *LeNet) Extractor() Extractor {
	name := l.Name
	if name == "" {
		name = "LeNet"
	}
	return &lenetExtractor{l: l, name: name}
}

type lenetExtractor struct {
	mu   sync.Mutex
	l    *LeNet
	name string
	gray []float32 // conversion buffers
	img  []float32
}

func (e *lenetExtractor) Name() string { return e.name }
func (e *lenetExtractor) Dim() int     { return lenetFeat }

func (e *lenetExtractor) Features(dst []float64, images []float32, s datasets.Shape) error {
	n, err := checkBatch(dst, images, s, lenetFeat)
	if err != nil {
		return err
	}
	if s.C != 1 && s.C != 3 {
		return fmt.Errorf("featnet: %s takes gray or RGB images, not %d channels", e.name, s.C)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.C == 3 {
		e.gray = grow(e.gray, n*s.H*s.W)
		toGray(e.gray, images, n, s.H*s.W)
		images = e.gray
	}
	if s.H != lenetSize || s.W != lenetSize {
		e.img = grow(e.img, n*lenetSize*lenetSize)
		Resize(e.img, images, n, s.H, s.W, lenetSize, lenetSize)
		images = e.img
	}
	return e.l.features(dst, images, n)
}

// checkBatch checks the arguments of Features and returns the number of
// images.
func checkBatch(dst []float64, images []float32, s datasets.Shape, dim int) (int, error) {
	if s.C <= 0 || s.H <= 0 || s.W <= 0 || len(images)%s.Size() != 0 {
		return 0, fmt.Errorf("featnet: %d values are not a whole number of %v images", len(images), s)
	}
	n := len(images) / s.Size()
	if len(dst) != n*dim {
		panic(fmt.Sprintf("featnet: %d feature values for %d images of %d features", len(dst), n, dim))
	}
	return n, nil
}

// toGray sets dst to the luma of the n RGB planes triples in src.
func toGray(dst, src []float32, n, plane int) {
	for i := 0; i < n; i++ {
		r, g, b := src[3*i*plane:], src[(3*i+1)*plane:], src[(3*i+2)*plane:]
		d := dst[i*plane : (i+1)*plane]
		for j := range d {
			// float32(…) stops arm64 fusing the multiply-adds: same bits as amd64.
			d[j] = float32(0.299*r[j]) + float32(0.587*g[j]) + float32(0.114*b[j])
		}
	}
}

func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}
