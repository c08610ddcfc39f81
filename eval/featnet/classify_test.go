package featnet_test

import (
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
)

// The shipped LeNet-MNIST classifies MNIST test digits as their labels
// (its accuracy is 98.4%), with confidences that are probabilities.
func TestClassify(t *testing.T) {
	test, err := datasets.LoadMNIST(datasets.Test)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Sample(test, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := featnet.ShippedLeNet("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := l.Classify(ds)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i, p := range ps {
		if p.Class == ds.Label(i) {
			right++
		}
		if !(p.Confidence >= 0.1 && p.Confidence <= 1) {
			t.Errorf("image %d: confidence %v", i, p.Confidence)
		}
	}
	acc, err := l.Accuracy(ds)
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(right) / float64(len(ps)); got != acc || got < 0.95 {
		t.Errorf("Classify agrees with the labels on %.3f, Accuracy says %.3f", got, acc)
	}
}
