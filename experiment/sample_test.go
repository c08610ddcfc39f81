package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// Sample draws one row per class of a conditional generator, a class
// only when asked, and refuses a class the model does not have;
// WriteFiles names each file by index and class.
func TestSample(t *testing.T) {
	c := trainedCGAN(t) // 2 classes
	s, err := experiment.Sample(c, nil, 5, 1, -1, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 2 || s.Len() != s.Rows*s.Cols || len(s.Labels) != s.Len() || s.Step != 3 || s.Policy != nil {
		t.Errorf("Sample: %dx%d grid of %d images, labels %v, step %d, policy %v", s.Rows, s.Cols, s.Len(), s.Labels, s.Step, s.Policy)
	}
	again, err := experiment.Sample(c, nil, 5, 1, -1, gan.SampleOptions{})
	if err != nil || len(again.Images) != len(s.Images) || again.Images[7] != s.Images[7] {
		t.Errorf("Sample twice with one seed: other images (%v)", err)
	}
	dir := t.TempDir()
	if err := s.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "00005_class1.png")); err != nil {
		t.Error(err)
	}
	var ce *experiment.ClassError
	if _, err := experiment.Sample(c, nil, 4, 1, 2, gan.SampleOptions{}); !errors.As(err, &ce) || ce.Classes != 2 {
		t.Errorf("class 2 of 2: %v, want a *ClassError", err)
	}
}
