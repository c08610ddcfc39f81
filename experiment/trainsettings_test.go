package experiment

import (
	"reflect"
	"strings"
	"testing"
	"time"

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

func TestWriteSummary(t *testing.T) {
	r := &TrainRun{NamedPolicy: NamedPolicy{Label: "posit8"}}
	sum := gan.Summary{FirstStep: 100, LastStep: 300, Elapsed: 50 * time.Second, Updates: []string{"D", "G"},
		Metrics: []string{"d_real"}, Skipped: []int{1, 0}, MeanLosses: []float64{0.5, 1.25}, MeanMetrics: []float64{0.875},
		FinalScales: []float64{512, 1024}, Samples: "s.png", Checkpoint: "c.st", Log: "log.csv", Status: gan.StatusOK}
	var b strings.Builder
	if err := r.WriteSummary(&b, sum); err != nil {
		t.Fatal(err)
	}
	want := "posit8: 200 steps in 50s (0.250 s/step); last 100 steps: D loss 0.500, G loss 1.250, d_real 0.88; " +
		"skipped updates D 1, G 0; loss scales after the last step D 512, G 1024\n" +
		"posit8: wrote s.png, c.st, log.csv\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	sum.Status, sum.Warnings, sum.Unhealthy, sum.LastHealthy = gan.StatusDiverged, []string{"nan loss"}, "u.st", 250
	r.WriteSummary(&b, sum)
	if !strings.Contains(b.String(), "posit8: WARNING: the run ended diverged (nan loss); c.st keeps step 250, the last before the alarm, and u.st the last state\n") ||
		!strings.HasSuffix(b.String(), "wrote s.png, c.st, log.csv, u.st\n") {
		t.Errorf("unhealthy: %q", b.String())
	}
}
