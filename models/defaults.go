package models

// The training defaults of a model that has none of its own (see
// TrainDefaultsOf).
const (
	DefaultDataset = "mnist"
	DefaultBatch   = 64
)

// TrainDefaults are the settings a model's runs take unless told
// otherwise: positgan train and positgan compare both read them here, so
// that the two commands train a model alike.
type TrainDefaults struct {
	Dataset string // the training data set (datasets.Load, or the model's own loader)
	Batch   int    // the batch size
}

// TrainDefaultsOf returns the training defaults of the model called name:
// those its Spec registers, DefaultDataset and DefaultBatch where it
// registers none. An unknown name gets the common defaults.
func TrainDefaultsOf(name string) TrainDefaults {
	d := TrainDefaults{Dataset: DefaultDataset, Batch: DefaultBatch}
	s, err := Lookup(name)
	if err != nil {
		return d
	}
	if s.Dataset != "" {
		d.Dataset = s.Dataset
	}
	if s.Batch > 0 {
		d.Batch = s.Batch
	}
	return d
}
