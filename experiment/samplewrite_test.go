package experiment_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// Samples.Write writes what it is asked for, and says what it wrote.
func TestSamplesWrite(t *testing.T) {
	s, err := experiment.Sample(trainedCGAN(t), nil, 5, 1, -1, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, grid, npy := filepath.Join(dir, "files"), filepath.Join(dir, "grid.png"), filepath.Join(dir, "x.npy")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	wrote, err := s.Write(files, grid, npy)
	sh := s.Shape
	want := []string{
		fmt.Sprintf("%d image files in %s", s.Len(), files),
		fmt.Sprintf("%s: %d images (%dx%d grid)", grid, s.Len(), s.Rows, s.Cols),
		fmt.Sprintf("%s: float32 (%d, %d, %d, %d)", npy, s.Len(), sh.C, sh.H, sh.W),
	}
	if err != nil || !slices.Equal(wrote, want) {
		t.Errorf("Write = %q, %v; want %q", wrote, err, want)
	}
	for _, p := range []string{grid, npy, filepath.Join(files, "00000_class0.png")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if wrote, err := s.Write("", "", ""); len(wrote) != 0 || err != nil {
		t.Errorf("Write of nothing = %q, %v", wrote, err)
	}
}
