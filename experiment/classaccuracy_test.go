package experiment_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// fixedClassifier answers with its classes, in order.
type fixedClassifier []int

func (f fixedClassifier) Classify(ds datasets.Dataset) ([]featnet.Prediction, error) {
	ps := make([]featnet.Prediction, len(f))
	for i, c := range f {
		ps[i] = featnet.Prediction{Class: c, Confidence: 1}
	}
	return ps, nil
}

// ClassAccuracy counts, per class drawn, the images the classifier gives
// that class; overall is over all images, not the mean of the classes.
func TestClassAccuracyKnownAnswers(t *testing.T) {
	labels := []int{0, 1, 2, 0, 1, 2, 0}
	ds := gan.NewGenerated(gan.GeneratorSpec{Classes: 3, Image: datasets.Shape{C: 1, H: 2, W: 2}}, make([]float32, 4*len(labels)), labels)
	per, all, err := experiment.ClassAccuracy(fixedClassifier{0, 1, 1, 0, 2, 2, 1}, ds)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2.0 / 3, 1.0 / 2, 1.0 / 2}
	if len(per) != 3 || per[0] != want[0] || per[1] != want[1] || per[2] != want[2] || all != 4.0/7 {
		t.Errorf("per class %v, overall %v; want %v, %v", per, all, want, 4.0/7)
	}
	if _, _, err := experiment.ClassAccuracy(fixedClassifier{0, 1}, ds); err == nil {
		t.Error("two answers for seven images: no error")
	}
}

// compare --metrics class-accuracy records, for a conditional generator,
// the overall figure as a table column and each class's in result.json,
// the same figures GeneratorClassAccuracy gives of the same images, on a
// finished sweep without training; an
// unconditional model, or a classifier that is not a LeNet, is refused.
func TestCompareClassAccuracy(t *testing.T) {
	dir := t.TempDir()
	data := writeIDXSplits(t, filepath.Join(dir, "data"), 40)
	out := filepath.Join(dir, "cmp")
	s := tinySweep(data, out, 2)
	s.Policies, s.Seeds = []string{"fp32"}, 1
	if _, err := experiment.Compare(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	// Asked for on the finished sweep: measured from the checkpoint.
	s.Metrics = []string{"fid", "class-accuracy"}
	s.Progress = func(r experiment.Run, _ int, _ []string) func(experiment.StepStats, time.Duration) {
		t.Errorf("%s trained again", r)
		return nil
	}
	tab, err := experiment.Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	const col = "class accuracy (LeNet-MNIST)"
	if len(tab.Extra) != 1 || tab.Extra[0] != col {
		t.Fatalf("extra columns %q, want %q", tab.Extra, col)
	}
	res := tab.Results[0]
	all, ok := res.Extra[col]
	if !ok || len(res.Extra) != 11 || !(all >= 0 && all <= 1) {
		t.Fatalf("extra figures %v", res.Extra)
	}
	var sum float64 // N = 30: three images of each class
	for k := range 10 {
		v, ok := res.Extra[fmt.Sprintf("class accuracy %d (LeNet-MNIST)", k)]
		if !ok || !(v >= 0 && v <= 1) || math.Abs(v*3-math.Round(v*3)) > 1e-12 {
			t.Errorf("class %d: %v, %v", k, v, ok)
		}
		sum += v
	}
	if math.Abs(sum/10-all) > 1e-12 {
		t.Errorf("overall %v, the mean of the classes %v", all, sum/10)
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| "+col+" |") {
		t.Errorf("results.md lacks the column %q:\n%s", col, md)
	}

	c, err := experiment.LoadCheckpoint(filepath.Join(out, "fp32", "seed1"))
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	net, err := experiment.LoadClassifier("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	per, all2, err := experiment.GeneratorClassAccuracy(c, net, 3, s.EvalSeed, 100, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if all2 != all || len(per) != 10 || per[7] != res.Extra["class accuracy 7 (LeNet-MNIST)"] {
		t.Errorf("GeneratorClassAccuracy %v, %v; compare recorded %v", per, all2, res.Extra)
	}

	for _, tc := range []struct {
		field string
		set   func(*experiment.Sweep)
	}{
		{"Metrics", func(s *experiment.Sweep) { s.Model = "dcgan" }},
		{"Features", func(s *experiment.Sweep) { s.Features = "inception:x.pth" }},
	} {
		s := tinySweep(data, filepath.Join(dir, "refused"), 2)
		s.Metrics = []string{"class-accuracy"}
		tc.set(&s)
		_, err := experiment.Compare(context.Background(), s)
		var ce *experiment.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%s: %v", tc.field, err)
		}
	}
}
