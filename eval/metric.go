package eval

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/datasets"
)

// A Metric is a registered figure of merit. It is one of two kinds:
//
//   - a PairMetric compares a test image with its reference image, one
//     pair at a time (PSNR, Y-PSNR, SSIM);
//   - a SetMetric compares two image sets through the features a feature
//     network (package featnet) gives their images (FID, KID).
//
// A metric is one file whose init function calls Register; callers find
// it with Lookup and take the kind they handle with a type assertion.
type Metric interface {
	// Summary says in one line what the metric measures, for help texts.
	Summary() string
}

// A PairMetric compares a test image with its reference.
type PairMetric interface {
	Metric
	// ComparePair returns the figure of test against ref, images on the
	// 8-bit scale (PixelsOf), with the settings of o the metric reads.
	ComparePair(ref, test Pixels, o Options) (float64, error)
}

// A SetMetric compares two image sets by their images' features.
type SetMetric interface {
	Metric
	// Label returns the metric's name with the feature network's, as it
	// is printed beside its figures: "FID (LeNet-MNIST)". A figure of one
	// network is never comparable with one of another.
	Label(features string) string
	// NeedsRows reports whether CompareSets needs the features of every
	// image (Features.Rows) and not only their statistics: a set known
	// only by a .npz statistics file cannot be measured by it.
	NeedsRows() bool
	// CompareSets returns the metric's figures between the image sets a
	// and b: the metric, then the standard deviation it is estimated
	// with, if it has one (KID's over subsets), or the figures a
	// FigureNamer names. A metric that is not symmetric measures b, the
	// generated set, against a, the real one.
	CompareSets(a, b Features, o Options) ([]float64, error)
}

// A FigureNamer is a SetMetric whose figures are several measures of
// their own, not one figure and its standard deviation: PRDC's
// precision, recall, density and coverage.
type FigureNamer interface {
	// FigureNames names CompareSets' figures, in order.
	FigureNames() []string
}

// Features are an image set as a SetMetric sees it.
type Features struct {
	// Rows holds the features of every image, one row per image; nil for
	// a set known only by its statistics.
	Rows mat.Matrix
	// Stats are the mean and covariance of the rows (StatsOf, or read
	// from a .npz file); the zero Stats if not computed, and a metric
	// that needs them computes them from Rows.
	Stats Stats
}

// stats returns f's statistics, computed from its rows if not given.
func (f Features) stats() (Stats, error) {
	if f.Stats.Dim() > 0 || f.Rows == nil {
		return f.Stats, nil
	}
	return StatsOf(f.Rows)
}

// Options are the settings of one measurement. Each metric reads the
// fields its Summary names and ignores the others; the zero value is
// every metric's default.
type Options struct {
	// Peak is PSNR's largest possible value on the 8-bit scale; 0 means
	// 255. Shaved measurements take only 255.
	Peak float64
	// Shave is the number of pixels cropped from every border before
	// comparing (the super-resolution scale factor, by convention): PSNR
	// and Y-PSNR then round both images to 8 bits first, as
	// super-resolution papers do (SRPSNR).
	Shave int
	// KID sets how KID subsamples the feature sets.
	KID KIDOptions
	// K is the number of nearest neighbours whose distance is the radius
	// of PRDC's balls, for all four figures; 0 means the papers' choices,
	// PRDCKPrecisionRecall and PRDCKDensityCoverage.
	K int
}

// The registry is written by init functions only (as image.RegisterFormat
// and models.Register are), then read.
var registry struct {
	sync.RWMutex
	metrics map[string]Metric
}

// Register adds a metric under name, which Lookup then finds. It panics
// if the name is taken or malformed, or m is neither a PairMetric nor a
// SetMetric: those are programming errors, found when the program
// starts.
func Register(name string, m Metric) {
	registry.Lock()
	defer registry.Unlock()
	switch m.(type) {
	case PairMetric, SetMetric:
	default:
		panic(fmt.Sprintf("eval: Register %s: %T is neither a PairMetric nor a SetMetric", name, m))
	}
	if name == "" || strings.ContainsAny(name, " ,:/") {
		panic(fmt.Sprintf("eval: Register: bad metric name %q", name))
	}
	if registry.metrics == nil {
		registry.metrics = map[string]Metric{}
	}
	if _, dup := registry.metrics[name]; dup {
		panic(fmt.Sprintf("eval: Register: metric %q registered twice", name))
	}
	registry.metrics[name] = m
}

// Lookup returns the metric registered as name.
func Lookup(name string) (Metric, error) {
	registry.RLock()
	defer registry.RUnlock()
	m, ok := registry.metrics[name]
	if !ok {
		return nil, fmt.Errorf("eval: unknown metric %q (registered: %s)", name, strings.Join(metricsLocked(), ", "))
	}
	return m, nil
}

// Metrics returns the names of the registered metrics, sorted.
func Metrics() []string {
	registry.RLock()
	defer registry.RUnlock()
	return metricsLocked()
}

func metricsLocked() []string {
	ns := make([]string, 0, len(registry.metrics))
	for n := range registry.metrics {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// LookupPair returns the metric registered as name if it is a
// PairMetric.
func LookupPair(name string) (PairMetric, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	p, ok := m.(PairMetric)
	if !ok {
		return nil, fmt.Errorf("eval: metric %q does not compare pairs of images", name)
	}
	return p, nil
}

// LookupSet returns the metric registered as name if it is a SetMetric.
func LookupSet(name string) (SetMetric, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	s, ok := m.(SetMetric)
	if !ok {
		return nil, fmt.Errorf("eval: metric %q does not compare image sets", name)
	}
	return s, nil
}

// ComparePairFiles decodes two image files (PNG, JPEG, GIF, TIFF or
// BMP, each of at most datasets.MaxImagePixels pixels, checked before
// decoding) and returns m's figure of test against ref: what positgan
// eval prints for two images.
func ComparePairFiles(m PairMetric, ref, test string, o Options) (float64, error) {
	ia, err := datasets.OpenImage(ref)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	ib, err := datasets.OpenImage(test)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	v, err := m.ComparePair(PixelsOf(ia), PixelsOf(ib), o)
	if err != nil {
		return 0, fmt.Errorf("%w (%s, %s)", err, ref, test)
	}
	return v, nil
}
