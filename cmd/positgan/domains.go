package main

import (
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
)

// loadTrainSets loads the training data of --model: one data set (see
// loadTrainData), or for a model of two domains (CycleGAN) the domains of
// --dataset, an unpaired folder (trainA, trainB, ...) or
// datasets.MNISTFashion (the model's default, models.TrainDefaultsOf). It returns the first data set (for
// sizes and messages; the centre crops of domain A when training on
// random crops) and all of them.
func loadTrainSets(f *trainFlags) (*datasets.Set, []datasets.Dataset, error) {
	spec, err := models.Lookup(f.model)
	if err != nil {
		return nil, nil, usageError{err}
	}
	if spec.Domains < 2 {
		ds, err := loadTrainData(f)
		return ds, []datasets.Dataset{ds}, err
	}
	a, b, crop, err := loadDomains(f.dataset, datasets.Train, f.imageSize, f.channels)
	if err != nil {
		return nil, nil, err
	}
	if crop == 0 {
		return a, []datasets.Dataset{a, b}, nil
	}
	var data []datasets.Dataset
	for i, s := range []*datasets.Set{a, b} {
		aug, err := datasets.Augment(s, crop, crop, true, f.seed+uint64(i))
		if err != nil {
			return nil, nil, err
		}
		data = append(data, aug)
	}
	first, err := datasets.CentreCrop(a, crop, crop) // of the size the model sees
	return first, data, err
}

// loadDomains loads split of the unpaired data set spec at side size (0:
// the data's own for MNISTFashion, 64 for folders). Folders of images are
// loaded 286/256 times larger and crop > 0 is the side of the random
// crops to train on (Zhu et al.: 286, cropped to 256); test splits and
// MNISTFashion are loaded at size and crop is 0.
func loadDomains(spec string, split datasets.Split, size, channels int) (a, b *datasets.Set, crop int, err error) {
	opt := datasets.Options{Split: split, Channels: channels, Height: size, Width: size}
	if spec != datasets.MNISTFashion {
		if size == 0 {
			size = 64
		}
		opt.Height, opt.Width = size, size
		if split == datasets.Train {
			load := (size*286 + 128) / 256
			opt.Height, opt.Width, crop = load, load, size
		}
	}
	a, b, err = datasets.LoadTranslation(spec, opt)
	return a, b, crop, err
}
