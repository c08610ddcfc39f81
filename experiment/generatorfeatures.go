package experiment

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// MaxGenerated bounds the images a generator checkpoint makes to be
// measured (positgan eval --n, compare --n): they are held in memory with
// their features, and the usual FID is of 50000 images.
const MaxGenerated = 50000

// GeneratorFeatures returns ext's features of the n images GeneratorStats
// measures (the generator of checkpoint c, noise drawn with seed, batch
// images at a time, batch <= 0 meaning 100), one row per image: for the
// measures that need the features themselves, such as eval.KID (positgan
// eval kid of a checkpoint).
func GeneratorFeatures(c *ckpt.Checkpoint, ext featnet.Extractor, n int, seed uint64, batch int, o gan.SampleOptions) (*mat.Dense, error) {
	if n > MaxGenerated {
		return nil, fmt.Errorf("experiment: generating %d images: at most %d are measured", n, MaxGenerated)
	}
	if batch <= 0 {
		batch = 100
	}
	m, _, err := models.Load(c, nil)
	if err != nil {
		return nil, err
	}
	g, err := gan.GenerateSet(m, n, seed, batch, o)
	if err != nil {
		return nil, err
	}
	return featnet.FeaturesOf(ext, g, 100)
}
