package featnet

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
)

func TestLeNetName(t *testing.T) {
	for ds, want := range map[string]string{"mnist": "LeNet-MNIST", "fashion-mnist": "LeNet-Fashion", "digits/": "LeNet"} {
		if got := LeNetName(ds); got != want {
			t.Errorf("LeNetName(%q) = %q, want %q", ds, got, want)
		}
	}
}

func TestFirstN(t *testing.T) {
	s := stripes(t, 10, 1)
	for _, tc := range []struct{ n, want int }{{0, 10}, {-1, 10}, {3, 3}, {10, 10}, {20, 10}} {
		if got := FirstN(s, tc.n).Len(); got != tc.want {
			t.Errorf("FirstN(10 images, %d) has %d, want %d", tc.n, got, tc.want)
		}
	}
	if got := FirstN(s, 3).NumClasses(); got != 2 {
		t.Errorf("FirstN keeps the classes: %d, want 2", got)
	}
}

// A folder of colour images of another size loads as 1×28×28 gray.
func TestLoadLeNetData(t *testing.T) {
	dir := t.TempDir()
	for i := range 4 {
		img := image.NewRGBA(image.Rect(0, 0, 40, 32))
		for p := range img.Pix {
			img.Pix[p] = uint8(p * (i + 1))
		}
		img.Set(0, 0, color.RGBA{255, 0, 0, 255})
		f, err := os.Create(filepath.Join(dir, string(rune('a'+i))+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	ds, err := LoadLeNetData(dir, datasets.Train)
	if err != nil {
		t.Fatal(err)
	}
	if sh := ds.Shape(); sh != (datasets.Shape{C: 1, H: 28, W: 28}) || ds.Len() == 0 {
		t.Errorf("%d images of %v, want 1x28x28", ds.Len(), sh)
	}
}
