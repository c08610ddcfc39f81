package featnet

import (
	"path/filepath"
	"strconv"

	"github.com/positgan/positgan/policy"
)

// RunLeNetName returns the name of a LeNet trained on dataset in a run of
// its own, which its FIDs carry: not the shipped network's
// (LeNetName), but "LeNet-MNIST (this run)" or, saved to file out,
// "LeNet-MNIST (out's base name)".
func RunLeNetName(dataset, out string) string {
	if out != "" {
		return LeNetName(dataset) + " (" + filepath.Base(out) + ")"
	}
	return LeNetName(dataset) + " (this run)"
}

// A LeNetRecord is how a LeNet was trained and how well it classifies:
// what its weight file keeps in Meta.
type LeNetRecord struct {
	Dataset      string
	Policy       *policy.Policy
	Epochs       int
	Batch        int
	LR           float64
	Seed         uint64
	TrainImages  int
	TestAccuracy float64 // in [0, 1]
	Command      string  // the command that trained it
}

// Record writes r into n.Meta, under the keys the shipped networks' files
// use (dataset, policy, policy_toml, epochs, batch, lr, seed,
// train_images, test_accuracy, command).
func (n *LeNet) Record(r LeNetRecord) {
	if n.Meta == nil {
		n.Meta = map[string]string{}
	}
	n.Meta["dataset"] = r.Dataset
	n.Meta["policy"] = r.Policy.Name
	n.Meta["policy_toml"] = r.Policy.String()
	n.Meta["epochs"] = strconv.Itoa(r.Epochs)
	n.Meta["batch"] = strconv.Itoa(r.Batch)
	n.Meta["lr"] = strconv.FormatFloat(r.LR, 'g', -1, 64)
	n.Meta["seed"] = strconv.FormatUint(r.Seed, 10)
	n.Meta["train_images"] = strconv.Itoa(r.TrainImages)
	n.Meta["test_accuracy"] = strconv.FormatFloat(r.TestAccuracy, 'f', 4, 64)
	n.Meta["command"] = r.Command
}
