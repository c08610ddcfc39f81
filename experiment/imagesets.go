package experiment

// The image sets positgan eval fid, kid and stats measure, each named by
// a path: a statistics file, a generator checkpoint or a data set.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
)

// DefaultGenerated is the number of images a generator checkpoint makes
// to be measured when SetOptions.N is 0.
const DefaultGenerated = 10000

// SetOptions say how the images of an image set are drawn (SetFeatures,
// SetStats).
type SetOptions struct {
	// Set are the options of a data set (featnet.ImageSetFeatures):
	// split, images drawn (0: all), seed of the draw, EXIF orientation.
	Set featnet.SetOptions
	// BatchStats makes a checkpoint's generator normalise each batch of
	// 100 by its own statistics instead of the running statistics.
	BatchStats bool
}

// generated is the number of images a checkpoint makes: N, or
// DefaultGenerated for 0.
func (o SetOptions) generated() int {
	if o.Set.N == 0 {
		return DefaultGenerated
	}
	return o.Set.N
}

// IsStatsFile reports whether path names a statistics file (.npz, as
// pytorch-fid writes them).
func IsStatsFile(path string) bool { return strings.EqualFold(filepath.Ext(path), ".npz") }

// IsCheckpoint reports whether path names a checkpoint (.safetensors).
func IsCheckpoint(path string) bool { return strings.EqualFold(filepath.Ext(path), ".safetensors") }

// SetFeatures returns ext's features of the images path names, one row
// per image: of a checkpoint, the images its generator makes from noise
// drawn with o.Set.Seed (GeneratorFeatures: o.Set.N of them, or
// DefaultGenerated), else of an image set datasets.Load reads
// (featnet.ImageSetFeatures). note says how a data set's images were
// brought to ext's input ("" if as they are).
func SetFeatures(path string, ext featnet.Extractor, o SetOptions) (f *mat.Dense, note string, err error) {
	if !IsCheckpoint(path) {
		f, note, err = featnet.ImageSetFeatures(path, ext, o.Set)
		if errors.Is(err, datasets.ErrNotDataSet) {
			err = fmt.Errorf("experiment: %s: not an image set (a folder, mnist, fashion-mnist, an IDX file), a statistics file (.npz) or a checkpoint (.safetensors)", path)
		}
		return f, note, err
	}
	c, err := ckpt.Load(path)
	if err != nil {
		return nil, "", err
	}
	f, err = GeneratorFeatures(c, ext, o.generated(), o.Set.Seed, 100, gan.SampleOptions{BatchStats: o.BatchStats})
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return f, "", nil
}

// SetStats returns the feature statistics of path: read from a statistics
// file, or of ext's features of the images of a checkpoint or image set
// (as SetFeatures reads them; a checkpoint's as GeneratorStats measures
// them, as Compare does), named after ext. note is SetFeatures'.
func SetStats(path string, ext featnet.Extractor, o SetOptions) (st eval.Stats, note string, err error) {
	if IsStatsFile(path) {
		st, err = eval.ReadStats(path)
		return st, "", err
	}
	if IsCheckpoint(path) {
		c, err := ckpt.Load(path)
		if err != nil {
			return eval.Stats{}, "", err
		}
		st, err := GeneratorStats(c, ext, o.generated(), o.Set.Seed, 100, gan.SampleOptions{BatchStats: o.BatchStats})
		if err != nil {
			return eval.Stats{}, "", fmt.Errorf("%s: %w", path, err)
		}
		st.Features = ext.Name()
		return st, "", nil
	}
	f, note, err := SetFeatures(path, ext, o)
	if err != nil {
		return eval.Stats{}, "", err
	}
	st, err = eval.StatsOf(f)
	st.Features = ext.Name()
	return st, note, err
}

// SetFeatureSet returns the features of every image of path, one row per
// image: read from a .npz file that holds them (eval.ReadFeatures, as
// positgan eval stats --save-features writes), or computed with ext as
// SetFeatures computes them, with Stats.Features naming ext. note is
// SetFeatures'.
func SetFeatureSet(path string, ext featnet.Extractor, o SetOptions) (f eval.Features, note string, err error) {
	if IsStatsFile(path) {
		f, err = eval.ReadFeatures(path)
		return f, "", err
	}
	rows, note, err := SetFeatures(path, ext, o)
	if err != nil {
		return eval.Features{}, "", err
	}
	return eval.Features{Rows: rows, Stats: eval.Stats{Features: ext.Name()}}, note, nil
}

// FeaturesOf returns the features rows of the images of one set with
// their statistics, named after the feature network name: what
// eval.WriteFeatures writes.
func FeaturesOf(rows *mat.Dense, name string) (eval.Features, error) {
	st, err := eval.StatsOf(rows)
	if err != nil {
		return eval.Features{}, err
	}
	st.Features = name
	return eval.Features{Rows: rows, Stats: st}, nil
}
