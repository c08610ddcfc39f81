package models

// A model's training data: one loader, carried by its Spec, that positgan
// train, a sweep's Evaluator and a notebook all call (TrainData).

import (
	"fmt"

	"github.com/positgan/positgan/datasets"
)

// DataSettings say which training data to load for a model and how.
type DataSettings struct {
	// Dataset is the data set, as datasets.Load or the model's loader
	// reads it.
	Dataset string
	// Size is the side of the images the model trains on (0: the
	// model's default, or the data's own) and Channels their channels
	// (0: the data's own).
	Size, Channels int
	// Seed seeds the data's augmentation (random crops, flips and
	// patches), the same for every run that should see the same data.
	Seed uint64
	// Batch is the training batch: a loader that makes its samples
	// makes at least that many.
	Batch int
}

// TrainSets are a model's training data.
type TrainSets struct {
	// Data are the data sets the trainer reads, one per domain of the
	// model (Spec.Domains), in its order.
	Data []datasets.Dataset
	// First is the first data set as the model sees it, held in memory:
	// for its shape, size and messages (the centre crops of domain A,
	// when training on random crops).
	First *datasets.Set
}

// A DataSettingError says that a setting of DataSettings does not suit
// the model, e.g. one channel for a model of RGB photographs.
type DataSettingError struct {
	Setting string // "channels", "size"
	Value   int
	Reason  string // e.g. "esrgan works on RGB images"
}

func (e *DataSettingError) Error() string {
	return fmt.Sprintf("models: %s %d: %s", e.Setting, e.Value, e.Reason)
}

// TrainData loads the training data of the registered model: with its
// Spec.TrainData if it has one, else the training split of s.Dataset as
// one data set (LoadTrainSet).
func TrainData(model string, s DataSettings) (TrainSets, error) {
	spec, err := Lookup(model)
	if err != nil {
		return TrainSets{}, err
	}
	if spec.TrainData != nil {
		return spec.TrainData(s)
	}
	ds, err := LoadTrainSet(s.Dataset, s.Size, s.Channels)
	if err != nil {
		return TrainSets{}, err
	}
	return TrainSets{Data: []datasets.Dataset{ds}, First: ds}, nil
}

// LoadTrainSet loads the training split of the data set spec names (see
// datasets.Load) with images of size×size (0: the data's own size, or
// 64×64 for a folder of images, the DCGAN setting) and channels (0: the
// data's own).
func LoadTrainSet(spec string, size, channels int) (*datasets.Set, error) {
	if size == 0 && datasets.IsImageFolder(spec) {
		size = 64
	}
	return datasets.Load(spec, datasets.Options{Split: datasets.Train, Height: size, Width: size, Channels: channels})
}
