package experiment

import (
	"errors"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// ErrNoTrainingSet is the error of TranslationFIDs, given no data set,
// for a checkpoint that does not record the data set it was trained on.
var ErrNoTrainingSet = errors.New("experiment: the checkpoint does not say what it was trained on")

// A NoFeaturesError is the error of TranslationFIDs, given no feature
// network, for a data set that has no default one
// (models.TranslationFeatures).
type NoFeaturesError struct {
	Dataset string
	Err     error
}

func (e *NoFeaturesError) Error() string { return e.Err.Error() }
func (e *NoFeaturesError) Unwrap() error { return e.Err }

// TranslationFIDs measures the FID of checkpoint c's translations of
// test images (models.TranslationFID, as t sets it) in each direction of
// dirs in turn, as positgan translate --fid does, and calls each with
// the direction, the FID and the metric's name once it is measured. An
// empty t.Dataset means the data set c was trained on (ErrNoTrainingSet
// if c does not record it); an empty t.Features means the data set's
// default feature network, and a data set without one is a
// *NoFeaturesError. Both are checked before anything is measured.
func TranslationFIDs(c *ckpt.Checkpoint, t models.TranslationFID, dirs []string, each func(dir string, fid float64, metric string)) error {
	if t.Dataset == "" {
		if t.Dataset = c.Meta[gan.MetaDataset]; t.Dataset == "" {
			return ErrNoTrainingSet
		}
	}
	if t.Features == "" && len(dirs) > 0 {
		if _, err := models.TranslationFeatures(t.Dataset, dirs[0]); err != nil {
			return &NoFeaturesError{Dataset: t.Dataset, Err: err}
		}
	}
	for _, d := range dirs {
		t.Direction = d
		fid, metric, err := t.Measure(c)
		if err != nil {
			return err
		}
		each(d, fid, metric)
	}
	return nil
}
