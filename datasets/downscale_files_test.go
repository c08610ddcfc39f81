package datasets

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// DownscaleFiles writes each file's Downscale under its name as .png,
// and DownscaleFile reports both sizes (the input cropped to a multiple
// of k first).
func TestDownscaleFiles(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, name := range []string{"a.png", "b.PNG"} {
		img := image.NewNRGBA(image.Rect(0, 0, 9, 8))
		for p := range img.Pix {
			img.Pix[p] = uint8(p*7 + i)
		}
		img.Set(0, 0, color.NRGBA{1, 2, 3, 255})
		var b bytes.Buffer
		png.Encode(&b, img)
		files = append(files, filepath.Join(dir, name))
		if err := os.WriteFile(files[i], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "lr")
	if err := DownscaleFiles(files, out, 2); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a.png", "b.png"} {
		src, _ := OpenImage(files[i])
		want := Downscale(src, 2)
		got, err := OpenImage(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Rect || got.Bounds().Dx() != 4 {
			t.Fatalf("%s: %v, want %v (9x8 cropped to 8x8, halved)", name, got.Bounds(), want.Rect)
		}
		for y := range 4 {
			for x := range 4 {
				r1, g1, b1, a1 := got.At(x, y).RGBA()
				r2, g2, b2, a2 := want.At(x, y).RGBA()
				if [4]uint32{r1, g1, b1, a1} != [4]uint32{r2, g2, b2, a2} {
					t.Fatalf("%s (%d,%d) differs", name, x, y)
				}
			}
		}
	}
	from, to, err := DownscaleFile(files[0], filepath.Join(dir, "one.png"), 2)
	if err != nil || from != (image.Point{9, 8}) || to != (image.Point{4, 4}) {
		t.Errorf("DownscaleFile: %v -> %v, %v", from, to, err)
	}
}
