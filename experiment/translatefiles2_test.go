package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// TranslateFiles returns models.Translate's translations and writes them
// under the source's names into a folder it makes.
func TestTranslateFiles(t *testing.T) {
	data := writeIDXSplits(t, filepath.Join(t.TempDir(), "data"), 8)
	ds, err := datasets.Load(data, datasets.Options{Split: datasets.Train, Height: 16, Width: 16})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.DefaultConfig(models.CycleGAN, ds.Shape(), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options["blocks"] = "1"
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds, ds}, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	src, names, err := experiment.TranslationSource(data, 3, ds.Shape())
	if err != nil {
		t.Fatal(err)
	}
	want, err := models.Translate(c, nil, models.GroupGAB, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "new", "out")
	got, err := experiment.TranslateFiles(c, nil, models.GroupGAB, src, names, 2, dir)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("TranslateFiles: %v; translations equal models.Translate's: %v", err, slices.Equal(got, want))
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Error(err)
		}
	}
}

// TranslationFIDs needs a data set (given, or recorded by the checkpoint)
// with a feature network, and measures nothing without them.
func TestTranslationFIDsChecks(t *testing.T) {
	c := trainedCycleGAN(t)
	called := false
	each := func(string, float64, string) { called = true }
	dirs := []string{models.AtoB, models.BtoA}
	if err := experiment.TranslationFIDs(c, models.TranslationFID{}, dirs, each); !errors.Is(err, experiment.ErrNoTrainingSet) {
		t.Errorf("no data set: %v, want ErrNoTrainingSet", err)
	}
	c.Meta[gan.MetaDataset] = "my-folder"
	var fe *experiment.NoFeaturesError
	if err := experiment.TranslationFIDs(c, models.TranslationFID{}, dirs, each); !errors.As(err, &fe) || fe.Dataset != "my-folder" {
		t.Errorf("data set without a feature network: %v, want a *NoFeaturesError naming it", err)
	}
	if called {
		t.Error("each called though nothing could be measured")
	}
}

// trainedCycleGAN returns a small cyclegan checkpoint, trained on nothing.
func trainedCycleGAN(t *testing.T) *ckpt.Checkpoint {
	t.Helper()
	data := writeIDXSplits(t, filepath.Join(t.TempDir(), "data"), 8)
	ds, err := datasets.Load(data, datasets.Options{Split: datasets.Train, Height: 16, Width: 16})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.DefaultConfig(models.CycleGAN, ds.Shape(), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options["blocks"] = "1"
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds, ds}, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if c.Meta == nil {
		c.Meta = map[string]string{}
	}
	return c
}
