package featnet

import (
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/policy"
)

// A LeNetRun is the training of a LeNet classifier as positgan lenet
// train does it: on the train split of a data set (or its first Limit
// images), measured on its test split, with the record of how it was
// trained kept in the network's Meta.
type LeNetRun struct {
	Dataset string // a data set spec, as LoadLeNetData takes it
	Policy  *policy.Policy
	// Options are the training's; their Progress is replaced by Train's
	// epochEnd.
	Options TrainOptions
	Limit   int // train on the first Limit images only; 0: all
	// Name is the network's name, which its FIDs carry; "" gives
	// RunLeNetName(Dataset, Out), so that they are not taken for the
	// shipped network's.
	Name    string
	Out     string // the file the network will be saved to, if any
	Command string // the command that trains it, for the record
}

// A LeNetTraining is a LeNetRun with its data loaded and its network
// built, ready to train.
type LeNetTraining struct {
	Run               LeNetRun
	Net               *LeNet
	TrainSet, TestSet datasets.Dataset
}

// Prepare loads the run's data and builds its network, with at least 10
// classes.
func (r LeNetRun) Prepare() (*LeNetTraining, error) {
	train, err := LoadLeNetData(r.Dataset, datasets.Train)
	if err != nil {
		return nil, err
	}
	test, err := LoadLeNetData(r.Dataset, datasets.Test)
	if err != nil {
		return nil, err
	}
	net, err := NewLeNet(max(train.NumClasses(), 10), r.Policy, r.Options.Seed)
	if err != nil {
		return nil, err
	}
	net.Name = r.Name
	if net.Name == "" {
		net.Name = RunLeNetName(r.Dataset, r.Out)
	}
	return &LeNetTraining{Run: r, Net: net, TrainSet: FirstN(train, r.Limit), TestSet: test}, nil
}

// Train trains the network, calling epochEnd (if not nil) after each
// epoch with the epoch (from 1) and its mean loss, then measures its
// accuracy on the test split and records the run in its Meta
// (LeNet.Record).
func (t *LeNetTraining) Train(epochEnd func(epoch int, meanLoss float64)) (accuracy float64, err error) {
	o := t.Run.Options
	var sum float64
	var n int
	o.Progress = func(epoch, step, steps int, loss float64) {
		sum += loss
		n++
		if step == steps {
			if epochEnd != nil {
				epochEnd(epoch, sum/float64(n))
			}
			sum, n = 0, 0
		}
	}
	if err := t.Net.Train(t.TrainSet, o); err != nil {
		return 0, err
	}
	acc, err := t.Net.Accuracy(t.TestSet)
	if err != nil {
		return 0, err
	}
	t.Net.Record(LeNetRecord{Dataset: t.Run.Dataset, Policy: t.Run.Policy, Epochs: o.Epochs, Batch: o.Batch, LR: o.LR,
		Seed: o.Seed, TrainImages: t.TrainSet.Len(), TestAccuracy: acc, Command: t.Run.Command})
	return acc, nil
}
