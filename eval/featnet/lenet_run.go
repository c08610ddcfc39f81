package featnet

// What a training run of a LeNet needs besides the network: its data, its
// default name, a subset of the training set. positgan lenet train is
// one such run.

import "github.com/positgan/positgan/datasets"

// LeNetName returns the name of the shipped LeNet trained on a data set:
// LeNet-MNIST for mnist, LeNet-Fashion for fashion-mnist, LeNet for any
// other.
func LeNetName(dataset string) string {
	switch dataset {
	case "mnist":
		return "LeNet-MNIST"
	case "fashion-mnist":
		return "LeNet-Fashion"
	}
	return "LeNet"
}

// LoadLeNetData loads a split of the data set spec names (see
// datasets.Load) as a LeNet reads it: 1×28×28 gray images, which MNIST
// and Fashion-MNIST are already.
func LoadLeNetData(spec string, split datasets.Split) (*datasets.Set, error) {
	opt := datasets.Options{Split: split}
	if spec != "mnist" && spec != "fashion-mnist" {
		opt.Height, opt.Width, opt.Channels = 28, 28, 1
	}
	return datasets.Load(spec, opt)
}

// FirstN returns the first n samples of ds, or ds itself if n <= 0 or
// it has no more than n.
func FirstN(ds datasets.Dataset, n int) datasets.Dataset {
	if n <= 0 || n >= ds.Len() {
		return ds
	}
	return firstSamples{ds, n}
}

// firstSamples is the first n samples of a data set.
type firstSamples struct {
	datasets.Dataset
	n int
}

func (f firstSamples) Len() int { return f.n }
