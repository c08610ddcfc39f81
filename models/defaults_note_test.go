package models

import "testing"

func TestDefaultsNote(t *testing.T) {
	got := DefaultsNote(func(d TrainDefaults) string {
		if d.Dataset == DefaultDataset {
			return ""
		}
		return d.Dataset
	})
	if want := " (by default mnist-fashion for cyclegan, sr-photos for esrgan)"; got != want {
		t.Errorf("DefaultsNote of the data sets = %q, want %q", got, want)
	}
	if got := DefaultsNote(func(TrainDefaults) string { return "" }); got != "" {
		t.Errorf("DefaultsNote of no difference = %q", got)
	}
}
