package experiment

import (
	"reflect"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// Adopt takes the first resumed run's settings for those not given, and
// only those.
func TestTrainSettingsAdopt(t *testing.T) {
	first := &Resumed{State: &gan.Saved{Options: gan.Options{Seed: 7, LR: 1e-3, BiasEvery: 50}},
		Config: models.Config{Arch: models.DCGAN, Features: 16, Options: map[string]string{"g_features": "32"}}}
	s := TrainSettings{Seed: 1, LR: 2e-4, BiasEvery: 0, Features: 0, Given: map[string]bool{"lr": true}}
	cfg := s.Adopt(first)
	want := TrainSettings{Seed: 7, LR: 2e-4, BiasEvery: 50, Features: 16, Options: map[string]string{"g_features": "32"},
		Given: map[string]bool{"lr": true}}
	if !reflect.DeepEqual(s, want) || cfg.Arch != models.DCGAN {
		t.Errorf("Adopt: %+v, config %v; want %+v", s, cfg, want)
	}
	first.Config.Options["g_features"] = "64" // a copy was taken
	if s.Options["g_features"] != "32" {
		t.Error("Adopt shares the checkpoint's options")
	}
	if cfg := (&TrainSettings{}).Adopt(nil); cfg.Arch != "" {
		t.Errorf("Adopt(nil) = %v, want the zero Config", cfg)
	}
}

// UseModelDefaults: the model's own data set and batch, unless given, a
// resumed data set, or a kept batch.
func TestUseModelDefaults(t *testing.T) {
	d := models.TrainDefaultsOf(models.ESRGAN)
	for _, tc := range []struct {
		given     map[string]bool
		dataset   string
		keepBatch bool
		wantData  string
		wantBatch int
	}{
		{nil, models.DefaultDataset, false, d.Dataset, d.Batch},
		{map[string]bool{"dataset": true}, models.DefaultDataset, false, models.DefaultDataset, d.Batch},
		{nil, "fashion-mnist", false, "fashion-mnist", d.Batch},
		{map[string]bool{"batch": true}, models.DefaultDataset, false, d.Dataset, 5},
		{nil, models.DefaultDataset, true, d.Dataset, 5},
	} {
		dataset, batch := tc.dataset, 5
		UseModelDefaults(models.ESRGAN, tc.given, &dataset, &batch, tc.keepBatch)
		if dataset != tc.wantData || batch != tc.wantBatch {
			t.Errorf("%v from %s (keep %v): %s, %d; want %s, %d", tc.given, tc.dataset, tc.keepBatch, dataset, batch, tc.wantData, tc.wantBatch)
		}
	}
}
