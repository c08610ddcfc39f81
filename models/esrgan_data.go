package models

import "github.com/positgan/positgan/datasets"

// srData loads ESRGAN's training data, for positgan train and a sweep
// alike: random patches of s.Size (0: srPatch) of the photographs of
// s.Dataset (sr-photos by default), srPatchesPerImage per photograph per
// epoch and at least s.Batch, cut as s.Seed draws them. First holds the
// patches of the first epoch.
func srData(s DataSettings) (TrainSets, error) {
	if s.Channels != 0 && s.Channels != 3 {
		return TrainSets{}, &DataSettingError{Setting: "channels", Value: s.Channels, Reason: "esrgan works on RGB images"}
	}
	size := s.Size
	if size == 0 {
		size = srPatch
	}
	ph, err := datasets.LoadPhotos(s.Dataset, datasets.Train)
	if err != nil {
		return TrainSets{}, err
	}
	p, err := datasets.NewPatches(ph, size, max(ph.Len()*srPatchesPerImage, s.Batch), s.Seed)
	if err != nil {
		return TrainSets{}, err
	}
	sh := p.Shape()
	pix := make([]uint8, p.Len()*sh.Size())
	buf := make([]float32, sh.Size())
	for i := range p.Len() {
		p.ImageAt(buf, i, 0)
		for j, v := range buf {
			pix[i*sh.Size()+j] = datasets.Round8((float64(v) + 1) * 127.5)
		}
	}
	first, err := datasets.NewSet(s.Dataset, sh, pix, make([]int, p.Len()), nil)
	return TrainSets{Data: []datasets.Dataset{p}, First: first}, err
}
