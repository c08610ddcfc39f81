package featnet

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
)

// A folder of images of several sizes is loaded at the network's input
// size, with a note naming the sizes; one of the network's input size and
// channels needs neither; a data set that is no folder gets no options.
func TestFolderOptions(t *testing.T) {
	ext, err := Load("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	write := func(dir, name string, img image.Image) {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
	}
	same, mixed := t.TempDir(), t.TempDir()
	write(same, "a.png", image.NewGray(image.Rect(0, 0, 28, 28)))
	write(mixed, "a.png", image.NewGray(image.Rect(0, 0, 28, 28)))
	write(mixed, "b.png", image.NewRGBA(image.Rect(0, 0, 40, 30)))

	if o, note := FolderOptions(same, ext); o != (datasets.Options{}) || note != "" {
		t.Errorf("28x28 gray: %+v, %q; want no options and no note", o, note)
	}
	o, note := FolderOptions(mixed, ext)
	if o.Height != 28 || o.Width != 28 || !strings.Contains(note, "2 images of 2 sizes (28x28, 40x30)") {
		t.Errorf("two sizes: %+v, %q; want 28x28 and a note naming the sizes", o, note)
	}
	if o, note := FolderOptions("mnist", ext); o != (datasets.Options{}) || note != "" {
		t.Errorf("mnist: %+v, %q", o, note)
	}
}
