package imageio_test

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/imageio"
)

func TestSave(t *testing.T) {
	dir := t.TempDir()
	img := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	png := filepath.Join(dir, "a.png")
	if err := imageio.Save(png, img); err != nil {
		t.Fatal(err)
	}
	got, err := imageio.Open(png, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			w, g := img.NRGBAAt(x, y), color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA)
			if w != g {
				t.Fatalf("pixel (%d,%d) read back as %v, wrote %v", x, y, g, w)
			}
		}
	}
	jpg := filepath.Join(dir, "a.jpg")
	if err := imageio.Save(jpg, img); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(jpg); err != nil || imageio.Format(b) != "jpeg" {
		t.Errorf("a.jpg: format %q, err %v; want a JPEG file", imageio.Format(b), err)
	}
	if err := imageio.Save(filepath.Join(dir, "a.xyz"), img); err == nil {
		t.Error("unknown extension: no error")
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 {
		t.Errorf("the folder holds %d files, want a.png and a.jpg only (no temporary files)", len(names))
	}
}
