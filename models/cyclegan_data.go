package models

import "github.com/positgan/positgan/datasets"

// translationData loads CycleGAN's training domains, for positgan train
// and a sweep alike: the domains of s.Dataset, an unpaired folder
// (trainA, trainB, ...) or datasets.MNISTFashion (the model's default).
// MNISTFashion is loaded at s.Size (0: its own 28x28); a folder at
// 286/256 times s.Size (0: 64), served as random crops of s.Size,
// flipped at random (Zhu et al.'s augmentation: 286, cropped to 256),
// the crops and flips drawn with s.Seed. First is then the centre crops
// of domain A, of the size the model sees.
func translationData(s DataSettings) (TrainSets, error) {
	a, b, crop, err := LoadDomains(s.Dataset, datasets.Train, s.Size, s.Channels)
	if err != nil {
		return TrainSets{}, err
	}
	if crop == 0 {
		return TrainSets{Data: []datasets.Dataset{a, b}, First: a}, nil
	}
	var data []datasets.Dataset
	for i, d := range []*datasets.Set{a, b} {
		aug, err := datasets.Augment(d, crop, crop, true, s.Seed+uint64(i))
		if err != nil {
			return TrainSets{}, err
		}
		data = append(data, aug)
	}
	first, err := datasets.CentreCrop(a, crop, crop) // of the size the model sees
	return TrainSets{Data: data, First: first}, err
}

// LoadDomains loads split of the unpaired data set spec at side size (0:
// the data's own for MNISTFashion, 64 for folders). Folders of images are
// loaded 286/256 times larger for the training split, and crop > 0 is
// then the side of the random crops to train on (Zhu et al.: 286,
// cropped to 256); test splits and MNISTFashion are loaded at size and
// crop is 0.
func LoadDomains(spec string, split datasets.Split, size, channels int) (a, b *datasets.Set, crop int, err error) {
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
