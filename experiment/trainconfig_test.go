package experiment_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
)

// oneClass is a data set whose every image has label 0.
type oneClass struct{ datasets.Dataset }

func (oneClass) NumClasses() int { return 1 }

// LoadTrainSet loads the training split at the size asked; ModelConfig
// configures a model for it, refusing a conditional model on data with
// one class.
func TestModelConfig(t *testing.T) {
	data := writeIDXSplits(t, filepath.Join(t.TempDir(), "data"), 20)
	ds, err := experiment.LoadTrainSet(data, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sh := ds.Shape(); sh != (datasets.Shape{C: 1, H: 28, W: 28}) || ds.Len() != 20 {
		t.Errorf("own size: %v, %d images", sh, ds.Len())
	}
	small, err := experiment.LoadTrainSet(data, 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sh := small.Shape(); sh != (datasets.Shape{C: 3, H: 16, W: 16}) {
		t.Errorf("size 16, 3 channels: %v", sh)
	}

	cfg, err := experiment.ModelConfig(models.CGAN, ds, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := models.DefaultConfig(models.CGAN, ds.Shape(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.String() != want.String() {
		t.Errorf("cgan: %s, want %s", cfg, want)
	}
	if cfg, err = experiment.ModelConfig(models.DCGAN, oneClass{ds}, 8, nil); err != nil || cfg.Features != 8 || cfg.Classes != 0 {
		t.Errorf("dcgan, features 8, one class: %s, %v", cfg, err)
	}
	var le *experiment.LabelsError
	if _, err := experiment.ModelConfig(models.CGAN, oneClass{ds}, 0, nil); !errors.As(err, &le) || le.Classes != 1 || le.Model != models.CGAN {
		t.Errorf("cgan on one class: %v, want a *LabelsError", err)
	}
	if _, err := experiment.ModelConfig(models.DCGAN, ds, 0, map[string]string{"nosuch": "1"}); err == nil {
		t.Error("an option dcgan does not read: no error")
	}
	if _, err := experiment.ModelConfig("vae", ds, 0, nil); err == nil {
		t.Error("an unknown model: no error")
	}
}
