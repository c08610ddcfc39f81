package featnet

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/policy"
)

// writeIDX writes s as the train and t10k splits of an IDX data set in dir.
func writeIDX(t *testing.T, dir string, s *datasets.Set) {
	t.Helper()
	n := s.Len()
	img := binary.BigEndian.AppendUint32(nil, 0x803)
	for _, d := range []uint32{uint32(n), 28, 28} {
		img = binary.BigEndian.AppendUint32(img, d)
	}
	lab := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 0x801), uint32(n))
	for i := range n {
		img = append(img, s.Pixels(i)...)
		lab = append(lab, byte(s.Label(i)))
	}
	for _, split := range []string{"train", "t10k"} {
		for name, data := range map[string][]byte{split + "-images-idx3-ubyte": img, split + "-labels-idx1-ubyte": lab} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A LeNetRun trains as the steps it stands for do by hand: the same
// weights, the mean loss of each epoch's steps, and the record.
func TestLeNetRun(t *testing.T) {
	dir := t.TempDir()
	writeIDX(t, dir, stripes(t, 48, 1))
	pol := &policy.Policy{Name: "fp32"}
	opt := TrainOptions{Epochs: 2, Batch: 8, LR: 1e-3, Seed: 5}
	run := LeNetRun{Dataset: dir, Policy: pol, Options: opt, Limit: 40, Out: "net.safetensors", Command: "cmd"}
	tr, err := run.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	var means []float64
	acc, err := tr.Train(func(epoch int, loss float64) { means = append(means, loss) })
	if err != nil {
		t.Fatal(err)
	}

	train, _ := LoadLeNetData(dir, datasets.Train)
	test, _ := LoadLeNetData(dir, datasets.Test)
	net, err := NewLeNet(10, pol, 5)
	if err != nil {
		t.Fatal(err)
	}
	var sums []float64
	var steps int
	o := opt
	o.Progress = func(epoch, step, n int, loss float64) {
		if step == 1 {
			sums = append(sums, 0)
		}
		sums[epoch-1] += loss
		steps = n
	}
	if err := net.Train(FirstN(train, 40), o); err != nil {
		t.Fatal(err)
	}
	for i := range sums {
		sums[i] /= float64(steps)
	}
	wantAcc, _ := net.Accuracy(test)
	if !slices.Equal(weightsOf(tr.Net), weightsOf(net)) {
		t.Error("weights differ from training by hand")
	}
	if !slices.Equal(means, sums) || acc != wantAcc || steps != 40/8 {
		t.Errorf("epoch means %v, accuracy %v; by hand %v (%d steps), %v", means, acc, sums, steps, wantAcc)
	}
	if tr.Net.Name != "LeNet (net.safetensors)" || tr.Net.Meta["train_images"] != "40" || tr.Net.Meta["command"] != "cmd" {
		t.Errorf("name %q, meta %v", tr.Net.Name, tr.Net.Meta)
	}
}
