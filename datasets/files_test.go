package datasets_test

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
)

func writeTestPNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// Folders give their images at any depth in sorted order, files stay as
// given; images of other sizes and RGB images are converted and counted.
func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	gray := image.NewGray(image.Rect(0, 0, 28, 28))
	for i := range gray.Pix {
		gray.Pix[i] = 255
	}
	rgb := image.NewNRGBA(image.Rect(0, 0, 56, 40))
	for y := range 40 {
		for x := range 56 {
			rgb.Set(x, y, color.NRGBA{255, 255, 255, 255})
		}
	}
	writeTestPNG(t, filepath.Join(dir, "d", "b.png"), gray)
	writeTestPNG(t, filepath.Join(dir, "d", "a", "c.png"), rgb)
	writeTestPNG(t, filepath.Join(dir, "d", ".hidden.png"), gray)
	if err := os.WriteFile(filepath.Join(dir, "d", "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, filepath.Join(dir, "single.png"), gray)

	files, err := datasets.ImageFiles([]string{filepath.Join(dir, "single.png"), filepath.Join(dir, "d")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "single.png"), filepath.Join(dir, "d", "a", "c.png"), filepath.Join(dir, "d", "b.png")}
	if len(files) != len(want) {
		t.Fatalf("ImageFiles = %q, want %q", files, want)
	}
	for i := range want {
		if files[i] != want[i] {
			t.Fatalf("ImageFiles = %q, want %q", files, want)
		}
	}
	s, conv, err := datasets.LoadFiles(files, datasets.Options{Height: 28, Width: 28, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || s.Shape() != (datasets.Shape{C: 1, H: 28, W: 28}) || conv != 1 {
		t.Errorf("LoadFiles: %d images of %v, %d converted; want 3 of 1x28x28, 1 converted", s.Len(), s.Shape(), conv)
	}
	for i := range 3 {
		for _, p := range s.Pixels(i) {
			if p != 255 {
				t.Fatalf("image %d: pixel %d, want 255", i, p)
			}
		}
	}

	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := datasets.ImageFiles([]string{empty}); err == nil {
		t.Error("ImageFiles of a folder without images: no error")
	}
	if _, _, err := datasets.LoadFiles([]string{filepath.Join(dir, "missing.png")}, datasets.Options{Height: 28, Width: 28}); err == nil {
		t.Error("LoadFiles of a missing file: no error")
	}
}
