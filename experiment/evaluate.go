package experiment

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/models"
)

// A sweepEvaluator is the Evaluator of a sweep's model
// (models.Spec.Evaluator), which measures the runs of a model that does
// not make images from noise by figures of its own in place of the FID
// of generated images. The table has a column per figure, then the
// training columns every sweep has (D and G loss, skipped updates,
// s/step). Its methods give the model's Evaluator the sweep's settings.
type sweepEvaluator struct {
	ev models.Evaluator
}

// evaluatorOf returns the Evaluator of a registered model, or nil for the
// models Compare measures by the FID of the images their generators make
// from noise. Each call makes a new one: compare keeps one per sweep,
// with what its runs share.
func evaluatorOf(model string) *sweepEvaluator {
	spec, err := models.Lookup(model)
	if err != nil || spec.Evaluator == nil {
		return nil
	}
	return &sweepEvaluator{ev: spec.Evaluator()}
}

// evalSettings returns what the model's Evaluator reads of the sweep, the
// options copied: the Evaluator may keep them.
func (s *Sweep) evalSettings() models.EvalSettings {
	return models.EvalSettings{Dataset: s.Dataset, Features: s.Features, N: s.N, Seed: s.EvalSeed,
		DataSeed: s.FirstSeed, Batch: s.Batch, Options: maps.Clone(s.Options)}
}

// Data returns the training data of s.Dataset, the data sets the model
// reads (models.Spec.Domains of them), in its order.
func (e *sweepEvaluator) Data(s *Sweep) ([]datasets.Dataset, error) {
	return e.ev.Data(s.evalSettings())
}

// Metrics names the figures Evaluate returns, in the table's order
// (fid.png charts the first); an error for settings the evaluation
// cannot measure.
func (e *sweepEvaluator) Metrics(s *Sweep) ([]string, error) {
	return e.ev.Metrics(s.evalSettings())
}

// Describe is the first line of results.md: what was measured.
func (e *sweepEvaluator) Describe(s *Sweep) string { return e.ev.Describe(s.evalSettings()) }

// Evaluate returns the figures of the checkpoint of a finished run, in
// Metrics' order.
func (e *sweepEvaluator) Evaluate(ctx context.Context, s *Sweep, c *ckpt.Checkpoint) ([]float64, error) {
	return e.ev.Evaluate(ctx, s.evalSettings(), c)
}

// baselines returns the rows of the sweep's table that no run makes, for
// a model whose Evaluator is a models.Baseliner (ESRGAN: bicubic
// upscaling), or nil.
func baselines(s *Sweep) ([]eval.Result, error) {
	e := evaluatorOf(s.Model)
	if e == nil {
		return nil, nil
	}
	b, ok := e.ev.(models.Baseliner)
	if !ok {
		return nil, nil
	}
	if len(s.Options) > 0 && s.Log != nil {
		// The rows are made for the model configured with the
		// sweep's options, which the log names as withOptions does.
		fmt.Fprintf(s.Log, "model options: %s\n", s.optionList())
	}
	rs, err := b.Baselines(s.evalSettings())
	if err != nil {
		return nil, fmt.Errorf("experiment: %s baseline: %w", strings.ToLower(s.Model), err)
	}
	return rs, nil
}

// A measurer measures the checkpoint of a finished run: by its Evaluator,
// or else by the FID of images its generator makes against ref.
type measurer struct {
	// metric is recorded in each Result: a run measured otherwise is
	// measured again.
	metric  string
	columns []string // the Evaluator's figures; nil for the FID
	ev      *sweepEvaluator
	ext     featnet.Extractor
	ref     eval.Features // rows only if a metric of extra needs them
	extra   []extraMetric // measured beside the FID (Sweep.Metrics)
}

// evaluatorMetric is what a Result of an Evaluator's records as its
// Metric: the names of its figures.
func evaluatorMetric(columns []string) string { return strings.Join(columns, "; ") }

// measureNames returns what the runs of s record as their Metric, the
// Evaluator's figures (nil for generators) and the columns of the set
// metrics of s.Metrics, without measuring.
func (s *Sweep) measureNames() (metric string, columns, extra []string, err error) {
	if ev := evaluatorOf(s.Model); ev != nil {
		if columns, err = ev.Metrics(s); err != nil {
			return "", nil, nil, &ConfigError{Field: "Features", Value: s.Features, Err: err}
		}
		return evaluatorMetric(columns), columns, nil, nil
	}
	ext, err := featnet.Load(s.Features)
	if err != nil {
		return "", nil, nil, &ConfigError{Field: "Features", Err: err}
	}
	ms, err := s.extraMetrics(ext.Name())
	if err != nil {
		return "", nil, nil, err
	}
	return featnet.MetricName(ext), nil, extraColumns(ms), nil
}
