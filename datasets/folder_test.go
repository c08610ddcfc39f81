package datasets

import (
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"
)

// writeImage writes img to path in the format its extension names.
func writeImage(t *testing.T, path string, img image.Image) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := imaging.Save(img, path); err != nil {
		t.Fatal(err)
	}
}

// patterned returns a w×h RGB image whose pixel (x, y) is
// (10x+y, 100+v, 200-v) with v = 10x+y, plus a tag added to the red.
func patterned(w, h, tag int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := 10*x + y
			m.SetNRGBA(x, y, color.NRGBA{uint8(v + tag), uint8(100 + v), uint8(200 - v), 255})
		}
	}
	return m
}

func solid(w, h int, c color.Color) image.Image {
	return imaging.New(w, h, c)
}

func TestLoadFolderClasses(t *testing.T) {
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "cats", "a.png"), patterned(4, 3, 0))
	writeImage(t, filepath.Join(dir, "cats", "deeper", "b.PNG"), patterned(4, 3, 1))
	writeImage(t, filepath.Join(dir, "dogs", "c.png"), patterned(4, 3, 2))
	writeImage(t, filepath.Join(dir, ".hidden", "d.png"), patterned(4, 3, 3))
	writeImage(t, filepath.Join(dir, "dogs", ".e.png"), patterned(4, 3, 4))
	writeFile(t, filepath.Join(dir, "dogs", "notes.txt"), []byte("not an image"))
	writeFile(t, filepath.Join(dir, "README"), []byte("not an image"))

	s, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || s.Shape() != (Shape{3, 3, 4}) || s.NumClasses() != 2 || strings.Join(s.Classes(), ",") != "cats,dogs" {
		t.Fatalf("%d samples of %v, classes %v; want 3 of 3x3x4, cats,dogs", s.Len(), s.Shape(), s.Classes())
	}
	for i, tag := range []int{0, 1, 2} {
		if want := []int{0, 0, 1}[i]; s.Label(i) != want {
			t.Errorf("label %d = %d, want %d", i, s.Label(i), want)
		}
		// (C, H, W) order: channel c of pixel (x, y) at c·12 + y·4 + x.
		p := s.Pixels(i)
		for y := range 3 {
			for x := range 4 {
				v := 10*x + y
				want := [3]int{v + tag, 100 + v, 200 - v}
				for c := range 3 {
					if got := int(p[c*12+y*4+x]); got != want[c] {
						t.Fatalf("sample %d channel %d at (%d,%d) = %d, want %d", i, c, x, y, got, want[c])
					}
				}
			}
		}
	}
}

func TestLoadFolderGrayAndResize(t *testing.T) {
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "red.png"), solid(6, 6, color.NRGBA{255, 0, 0, 255}))
	writeImage(t, filepath.Join(dir, "green.png"), solid(8, 4, color.NRGBA{0, 255, 0, 255}))
	writeImage(t, filepath.Join(dir, "blue.jpg"), solid(5, 9, color.NRGBA{0, 0, 255, 255}))
	writeImage(t, filepath.Join(dir, "white.png"), solid(3, 3, color.NRGBA{255, 255, 255, 128})) // alpha dropped

	// Sizes differ: without a target size that is an error naming a file.
	_, err := LoadFolder(dir, Options{})
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "give a height and width") {
		t.Fatalf("mixed sizes without a target: %v", err)
	}

	s, err := LoadFolder(dir, Options{Height: 4, Width: 4, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Shape() != (Shape{1, 4, 4}) || s.NumClasses() != 1 {
		t.Fatalf("shape %v, %d classes; want 1x4x4, 1", s.Shape(), s.NumClasses())
	}
	// Files in name order; luma 0.299R + 0.587G + 0.114B, rounded:
	// blue 29.07, green 149.685, red 76.245, white 255. Resizing a solid
	// image keeps it solid. JPEG may move blue by a little.
	for i, want := range []int{29, 150, 76, 255} {
		for _, p := range s.Pixels(i) {
			if d := int(p) - want; d < -2 || d > 2 || i != 0 && d != 0 {
				t.Fatalf("sample %d: pixel %d, want %d", i, p, want)
			}
		}
	}
}

func TestFitCentreCrop(t *testing.T) {
	// 4×2 to 2×2: no scaling, the middle two columns.
	src := patterned(4, 2, 0)
	dst := make([]uint8, 3*2*2)
	fit(dst, src, Shape{3, 2, 2})
	for y := range 2 {
		for x := range 2 {
			if got, want := int(dst[y*2+x]), 10*(x+1)+y; got != want {
				t.Errorf("red at (%d,%d) = %d, want %d (column %d of the source)", x, y, got, want, x+1)
			}
		}
	}
}

func TestLoadFolderErrors(t *testing.T) {
	t.Run("bad image", func(t *testing.T) {
		dir := t.TempDir()
		writeImage(t, filepath.Join(dir, "a.png"), patterned(2, 2, 0))
		bad := writeFile(t, filepath.Join(dir, "b.png"), []byte("not a png"))
		_, err := LoadFolder(dir, Options{})
		var fe *FileError
		if !errors.As(err, &fe) || fe.Path != bad {
			t.Errorf("error %v, want one naming %s", err, bad)
		}
	})
	t.Run("images beside class folders", func(t *testing.T) {
		dir := t.TempDir()
		writeImage(t, filepath.Join(dir, "a.png"), patterned(2, 2, 0))
		writeImage(t, filepath.Join(dir, "c", "b.png"), patterned(2, 2, 0))
		if _, err := LoadFolder(dir, Options{}); err == nil || !strings.Contains(err.Error(), "both images (a.png) and class folders (c)") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("empty class", func(t *testing.T) {
		dir := t.TempDir()
		writeImage(t, filepath.Join(dir, "a", "b.png"), patterned(2, 2, 0))
		os.Mkdir(filepath.Join(dir, "z"), 0o755)
		if _, err := LoadFolder(dir, Options{}); err == nil || !strings.Contains(err.Error(), "class folder without images") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if _, err := LoadFolder(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "no images") {
			t.Errorf("error %v", err)
		}
	})
}

func TestLoadFolderSplits(t *testing.T) {
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "train", "x", "a.png"), patterned(2, 2, 0))
	writeImage(t, filepath.Join(dir, "train", "y", "b.png"), patterned(2, 2, 1))
	writeImage(t, filepath.Join(dir, "test", "x", "c.png"), patterned(2, 2, 2))
	for _, tc := range []struct {
		split Split
		n     int
	}{{Train, 2}, {Test, 1}} {
		s, err := Load(dir, Options{Split: tc.split})
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != tc.n {
			t.Errorf("%v: %d samples, want %d", tc.split, s.Len(), tc.n)
		}
	}
}

func TestLoadUnpaired(t *testing.T) {
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "trainA", "a.png"), patterned(4, 4, 0))
	writeImage(t, filepath.Join(dir, "trainA", "b.png"), patterned(4, 4, 1))
	writeImage(t, filepath.Join(dir, "trainB", "c.jpg"), patterned(6, 6, 2))
	if _, _, err := LoadUnpaired(dir, Options{}); err == nil || !strings.Contains(err.Error(), "domain A") {
		t.Errorf("domains of different sizes: %v", err)
	}
	a, b, err := LoadUnpaired(dir, Options{Height: 4, Width: 4})
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 2 || b.Len() != 1 || a.Shape() != b.Shape() || a.Shape() != (Shape{3, 4, 4}) {
		t.Errorf("A: %d of %v, B: %d of %v", a.Len(), a.Shape(), b.Len(), b.Shape())
	}
}

// IDX data reshaped: gray copied to RGB, and resized.
func TestLoadIDXReshape(t *testing.T) {
	dir := t.TempDir()
	f := fixture{n: 3, h: 2, w: 2}
	f.writeSplit(t, dir, "train", true)
	s, err := Load(dir, Options{Channels: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.Shape() != (Shape{3, 2, 2}) {
		t.Fatalf("shape %v", s.Shape())
	}
	pix := f.pixels()
	for i := range 3 {
		for c := range 3 {
			if got, want := string(s.Pixels(i)[4*c:4*c+4]), string(pix[4*i:4*i+4]); got != want {
				t.Errorf("sample %d channel %d: %v, want %v", i, c, []byte(got), []byte(want))
			}
		}
	}

	// A solid image stays solid when scaled up.
	dir = t.TempDir()
	n, h, w := 2, 3, 3
	solidPix := make([]byte, n*h*w)
	for i := range solidPix {
		solidPix[i] = byte(40 + 100*(i/(h*w)))
	}
	writeFile(t, filepath.Join(dir, "train-images-idx3-ubyte"), idxBytes(idxImagesMagic, []int{n, h, w}, solidPix))
	writeFile(t, filepath.Join(dir, "train-labels-idx1-ubyte"), idxBytes(idxLabelsMagic, []int{n}, []byte{0, 1}))
	s, err = Load(dir, Options{Height: 8, Width: 8})
	if err != nil {
		t.Fatal(err)
	}
	if s.Shape() != (Shape{1, 8, 8}) {
		t.Fatalf("shape %v", s.Shape())
	}
	for i, want := range []byte{40, 140} {
		for _, p := range s.Pixels(i) {
			if p != want {
				t.Fatalf("sample %d: pixel %d, want %d", i, p, want)
			}
		}
	}
}
