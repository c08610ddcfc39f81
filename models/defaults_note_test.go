package models

import (
	"strings"
	"testing"
)

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

func TestOptionsNote(t *testing.T) {
	got := OptionsNote()
	for _, want := range []string{"cyclegan: blocks, d_layers", "; esrgan: blocks, gan_weight"} {
		if !strings.Contains(got, want) {
			t.Errorf("OptionsNote() = %q, want it to hold %q", got, want)
		}
	}
}
