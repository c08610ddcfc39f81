package experiment

import (
	"context"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/models"
)

// An Evaluator measures the runs of a model that does not make images
// from noise by figures of its own (CycleGAN: the FID of each direction
// of translation), in place of the FID of generated images that Compare
// measures otherwise. The table has a column per figure, then the
// training columns every sweep has (D and G loss, skipped updates,
// s/step). evaluatorOf names the models that have one.
type Evaluator interface {
	// Data returns the training data of s.Dataset, the data sets the
	// model reads (models.Spec.Domains of them), in its order.
	Data(s *Sweep) ([]datasets.Dataset, error)
	// Metrics names the figures Evaluate returns, in the table's order
	// (fid.png charts the first). It may fill in s.Features, and is an
	// error for settings the evaluation cannot measure.
	Metrics(s *Sweep) ([]string, error)
	// Describe is the first line of results.md: what was measured.
	Describe(s *Sweep) string
	// Evaluate returns the figures of the checkpoint of a finished run,
	// in Metrics' order.
	Evaluate(ctx context.Context, s *Sweep, c *ckpt.Checkpoint) ([]float64, error)
}

// evaluatorOf returns the Evaluator of a registered model, or nil for the
// models Compare measures by the FID of the images their generators make
// from noise. A model gets its own evaluation by a case here and a type
// in a file of its own.
func evaluatorOf(model string) Evaluator {
	switch model {
	case models.CycleGAN:
		return translationEvaluator{refs: new(translationRefs)} // compare keeps one, and its statistics, per sweep
	case models.ESRGAN:
		return srEvaluator{} // superres.go
	}
	return nil
}

// A measurer measures the checkpoint of a finished run: by its Evaluator,
// or else by the FID of images its generator makes against ref.
type measurer struct {
	// metric is recorded in each Result: a run measured otherwise is
	// measured again.
	metric  string
	columns []string // the Evaluator's figures; nil for the FID
	ev      Evaluator
	ext     featnet.Extractor
	ref     eval.Stats
}

// evaluatorMetric is what a Result of an Evaluator's records as its
// Metric: the names of its figures.
func evaluatorMetric(columns []string) string { return strings.Join(columns, "; ") }

// measureNames returns what the runs of s record as their Metric, and
// the Evaluator's figures (nil for generators), without measuring.
func (s *Sweep) measureNames() (metric string, columns []string, err error) {
	if ev := evaluatorOf(s.Model); ev != nil {
		if columns, err = ev.Metrics(s); err != nil {
			return "", nil, &ConfigError{Field: "Features", Value: s.Features, Err: err}
		}
		return evaluatorMetric(columns), columns, nil
	}
	ext, err := featnet.Load(s.Features)
	if err != nil {
		return "", nil, &ConfigError{Field: "Features", Err: err}
	}
	return featnet.MetricName(ext), nil, nil
}
