package featnet_test

import (
	"testing"

	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/policy"
)

// A LeNet of a run of its own is named after its file, not as the
// shipped one; its record goes to Meta under the shipped files' keys.
func TestLeNetRecord(t *testing.T) {
	if got := featnet.RunLeNetName("mnist", "/tmp/x/my.safetensors"); got != "LeNet-MNIST (my.safetensors)" {
		t.Errorf("RunLeNetName = %q", got)
	}
	if got := featnet.RunLeNetName("fashion-mnist", ""); got != "LeNet-Fashion (this run)" {
		t.Errorf("RunLeNetName without a file = %q", got)
	}
	pol, err := policy.Parse("fp32")
	if err != nil {
		t.Fatal(err)
	}
	net, err := featnet.NewLeNet(10, pol, 1)
	if err != nil {
		t.Fatal(err)
	}
	net.Record(featnet.LeNetRecord{Dataset: "mnist", Policy: pol, Epochs: 5, Batch: 64, LR: 1e-3, Seed: 1,
		TrainImages: 60000, TestAccuracy: 0.98765, Command: "positgan lenet train"})
	for k, want := range map[string]string{"dataset": "mnist", "policy": "fp32", "epochs": "5", "lr": "0.001",
		"train_images": "60000", "test_accuracy": "0.9877", "command": "positgan lenet train"} {
		if net.Meta[k] != want {
			t.Errorf("Meta[%s] = %q, want %q", k, net.Meta[k], want)
		}
	}
}
