package models

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
)

// CycleGAN's loader serves a folder as random crops of the side asked,
// loaded 286/256 times larger, with the centre crops of domain A first;
// its Evaluator trains a sweep on the same data.
func TestTrainDataTranslation(t *testing.T) {
	dir := translationFolder(t, 3)
	ts, err := TrainData(CycleGAN, DataSettings{Dataset: dir, Size: 16, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := datasets.Shape{C: 3, H: 16, W: 16}
	if len(ts.Data) != 2 || ts.First.Shape() != want || ts.Data[0].Shape() != want || ts.First.Len() != 3 {
		t.Fatalf("%d data sets, first %v x %d; want 2 of %v", len(ts.Data), ts.First.Shape(), ts.First.Len(), want)
	}
	a, b, crop, err := LoadDomains(dir, datasets.Train, 16, 0)
	if err != nil || crop != 16 || a.Shape().H != (16*286+128)/256 || b.Len() != 3 {
		t.Errorf("LoadDomains: crop %d, %v, %v", crop, a.Shape(), err)
	}
	if _, _, crop, err := LoadDomains(dir, datasets.Test, 16, 0); err != nil || crop != 0 {
		t.Errorf("LoadDomains of the test split: crop %d, %v", crop, err)
	}

	ev := newTranslationEvaluator()
	data, err := ev.Data(EvalSettings{Dataset: dir, DataSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	sh := data[0].Shape()
	x, y := make([]float32, sh.Size()), make([]float32, sh.Size())
	ref, err := TrainData(CycleGAN, DataSettings{Dataset: dir, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		data[i].Image(x, 1)
		ref.Data[i].Image(y, 1)
		for j := range x {
			if x[j] != y[j] {
				t.Fatalf("domain %d: the Evaluator's data differ from TrainData's", i)
			}
		}
	}
}

// A model without a loader of its own trains on one data set; a setting
// a loader refuses is a *DataSettingError.
func TestTrainDataErrors(t *testing.T) {
	if _, err := TrainData("nosuchmodel", DataSettings{}); err == nil {
		t.Error("unknown model: no error")
	}
	var se *DataSettingError
	if _, err := TrainData(ESRGAN, DataSettings{Dataset: datasets.SRPhotos, Channels: 1}); !errors.As(err, &se) || se.Setting != "channels" || se.Value != 1 {
		t.Errorf("esrgan with one channel: %v, want a *DataSettingError", err)
	}
	dir := translationFolder(t, 2)
	ts, err := TrainData(DCGAN, DataSettings{Dataset: filepath.Join(dir, "trainA"), Size: 8})
	if err != nil || len(ts.Data) != 1 || ts.Data[0] != datasets.Dataset(ts.First) || ts.First.Shape().H != 8 {
		t.Errorf("dcgan on a folder of images: %v", err)
	}
}
