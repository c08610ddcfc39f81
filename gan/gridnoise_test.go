package gan_test

import (
	"slices"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
)

// GridNoise draws one row per class for a conditional generator, a square
// grid of one class with class >= 0, and the same noise for the same seed.
func TestGridNoise(t *testing.T) {
	spec := gan.GeneratorSpec{Net: "G", Z: []int{4}, Classes: 3, Image: datasets.Shape{C: 1, H: 2, W: 2}}
	z, labels, rows, cols := gan.GridNoise(spec, 5, 1, -1)
	if rows != 3 || len(labels) != rows*cols || len(z) != len(labels)*4 || labels[0] != 0 || labels[len(labels)-1] != 2 {
		t.Errorf("one row per class: %dx%d grid, labels %v", rows, cols, labels)
	}
	z2, _, _, _ := gan.GridNoise(spec, 5, 1, -1)
	if !slices.Equal(z, z2) {
		t.Error("the same seed drew other noise")
	}
	_, labels, rows, cols = gan.GridNoise(spec, 4, 1, 2)
	if rows != 2 || cols != 2 || slices.ContainsFunc(labels, func(l int) bool { return l != 2 }) {
		t.Errorf("class 2: %dx%d grid, labels %v", rows, cols, labels)
	}
	spec.Classes = 0
	if z, labels, _, _ := gan.GridNoise(spec, 7, 2, -1); len(z) != 7*4 || labels != nil {
		t.Errorf("unconditional: %d values, labels %v", len(z), labels)
	}
}
