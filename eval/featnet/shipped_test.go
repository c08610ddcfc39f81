package featnet

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
)

// TestShippedWeights loads each shipped network: the embedded bytes must
// be a valid checkpoint (ckpt.Load checks its checksum) with the same
// tensors, record its test accuracy, and classify the first 1000 test
// images about as well as recorded (a mis-loaded network scores ~10%).
func TestShippedWeights(t *testing.T) {
	for _, tc := range []struct {
		spec, name, data string
	}{
		{"lenet-mnist", "LeNet-MNIST", "mnist"},
		{"lenet-fashion", "LeNet-Fashion", "fashion-mnist"},
	} {
		l, err := ShippedLeNet(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		var file string
		for _, s := range shipped {
			if s.spec == tc.spec {
				file = s.file
			}
		}
		c, err := ckpt.Load(file)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		got := l.Checkpoint()
		if !slices.Equal(sortedKeys(got.Tensors), sortedKeys(c.Tensors)) {
			t.Errorf("%s: tensors %v, file has %v", tc.spec, sortedKeys(got.Tensors), sortedKeys(c.Tensors))
		}
		for name, tn := range c.Tensors {
			if !slices.Equal(tn.Data, got.Tensors[name].Data) {
				t.Errorf("%s: tensor %s differs from the file", tc.spec, name)
			}
		}
		if !maps.Equal(got.Meta, c.Meta) {
			t.Errorf("%s: metadata %v, file has %v", tc.spec, got.Meta, c.Meta)
		}
		if l.Name != tc.name || l.Meta["dataset"] != tc.data || l.Meta["policy"] != "fp32" {
			t.Errorf("%s: name %q, meta %v", tc.spec, l.Name, l.Meta)
		}
		recorded, err := strconv.ParseFloat(l.Meta["test_accuracy"], 64)
		if err != nil {
			t.Fatalf("%s: test_accuracy %q: %v", tc.spec, l.Meta["test_accuracy"], err)
		}
		if testing.Short() {
			continue
		}
		test, err := datasets.Load(tc.data, datasets.Options{Split: datasets.Test})
		if err != nil {
			t.Skipf("%s: %v", tc.data, err)
		}
		acc, err := l.Accuracy(firstN{test, 1000})
		if err != nil {
			t.Fatal(err)
		}
		if acc < recorded-0.03 {
			t.Errorf("%s: accuracy %.4f on the first 1000 test images, recorded %.4f on all", tc.spec, acc, recorded)
		}
	}
}

type firstN struct {
	datasets.Dataset
	n int
}

func (f firstN) Len() int { return f.n }
