package models_test

import (
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
)

// Each model's training defaults: the common ones, but CycleGAN's
// unpaired toy and ESRGAN's photographs and batch.
func TestTrainDefaultsOf(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  models.TrainDefaults
	}{
		{models.CGAN, models.TrainDefaults{Dataset: "mnist", Batch: 64}},
		{models.DCGAN, models.TrainDefaults{Dataset: "mnist", Batch: 64}},
		{models.CycleGAN, models.TrainDefaults{Dataset: datasets.MNISTFashion, Batch: 64}},
		{models.ESRGAN, models.TrainDefaults{Dataset: datasets.SRPhotos, Batch: 8}},
		{"nosuch", models.TrainDefaults{Dataset: "mnist", Batch: 64}},
	} {
		if got := models.TrainDefaultsOf(tc.model); got != tc.want {
			t.Errorf("TrainDefaultsOf(%q) = %+v, want %+v", tc.model, got, tc.want)
		}
	}
}
