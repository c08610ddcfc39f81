package models

import (
	"context"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
)

// An Evaluator measures the runs of a model that does not make images
// from noise by figures of its own (CycleGAN: the FID of each direction
// of translation; ESRGAN: PSNR and SSIM of its enlargements), in place of
// the FID of generated images that a sweep (package experiment) measures
// otherwise. A model has one when its Spec.Evaluator is set.
type Evaluator interface {
	// Data returns the training data of s.Dataset, the data sets the
	// model reads (Spec.Domains of them), in its order.
	Data(s EvalSettings) ([]datasets.Dataset, error)
	// Metrics names the figures Evaluate returns, in its order (a
	// sweep's chart shows the first). It is an error for settings the
	// evaluation cannot measure, such as a data set without a default
	// feature network.
	Metrics(s EvalSettings) ([]string, error)
	// Describe says in a sentence what was measured (the first line of
	// a sweep's results.md).
	Describe(s EvalSettings) string
	// Evaluate returns the figures of the checkpoint of a finished run,
	// in Metrics' order.
	Evaluate(ctx context.Context, s EvalSettings, c *ckpt.Checkpoint) ([]float64, error)
}

// A Baseliner is an Evaluator whose figures have rows that no training
// run makes (ESRGAN: bicubic upscaling), measured with the Evaluator's
// figures only; a sweep's table puts them first.
type Baseliner interface {
	Baselines(s EvalSettings) ([]eval.Result, error)
}

// EvalSettings are what an Evaluator reads of the sweep it measures: the
// same for every run of the sweep.
type EvalSettings struct {
	// Dataset is the data set the runs train on and are measured with
	// (its test split), as datasets.Load or the model reads it.
	Dataset string
	// Features names a feature network (featnet.Load); empty means the
	// Evaluator's choice.
	Features string
	// N is the number of images per figure, drawn with Seed.
	N    int
	Seed uint64
	// DataSeed seeds the training data's augmentation (random crops and
	// flips), the same for every run.
	DataSeed uint64
	// Batch is the training batch: a training set holds at least that
	// many images.
	Batch int
	// Options are the model options of the runs, set over the model's
	// default configuration (Config.WithOptions).
	Options map[string]string
}
