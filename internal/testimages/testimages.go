// Package testimages makes small image folders for tests: the layouts
// positgan's data loaders read, filled with smooth colour patterns.
package testimages

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/disintegration/imaging"
)

// SRFolder writes a DIV2K-style super-resolution folder in a temporary
// directory and returns it: train/ with two 64x64 images and test/ with
// one 40x36 image.
func SRFolder(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []struct {
		path string
		w, h int
	}{{"train/a.png", 64, 64}, {"train/b.png", 64, 64}, {"test/c.png", 40, 36}} {
		img := image.NewNRGBA(image.Rect(0, 0, f.w, f.h))
		for y := range f.h {
			for x := range f.w {
				i := img.PixOffset(x, y)
				img.Pix[i] = uint8(128 + 100*math.Sin(float64(x)/5))
				img.Pix[i+1] = uint8(128 + 100*math.Cos(float64(y)/7))
				img.Pix[i+2] = uint8(x * y % 256)
				img.Pix[i+3] = 255
			}
		}
		p := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := imaging.Save(img, p); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
