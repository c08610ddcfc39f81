package eval_test

import (
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/eval"
)

// writePNG writes a 4x4 grey image of value v.
func writePNG(t *testing.T, path string, v uint8) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = v
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

// PairFiles pairs same-named images of two folders in name order, and
// refuses a name in one folder only or a file beside a folder.
func TestPairFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writePNG(t, filepath.Join(d, "y.png"), 10)
		writePNG(t, filepath.Join(d, "x.PNG"), 20)
	}
	if err := os.WriteFile(filepath.Join(a, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := eval.PairFiles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0].Name != "x.PNG" || pairs[1].B != filepath.Join(b, "y.png") {
		t.Errorf("PairFiles = %v", pairs)
	}
	m, err := eval.LookupPair("psnr")
	if err != nil {
		t.Fatal(err)
	}
	vals, mean, err := eval.ComparePairs(m, pairs, eval.Options{Peak: 255})
	if err != nil || len(vals) != 2 || mean != (vals[0]+vals[1])/2 {
		t.Errorf("ComparePairs = %v, %v, %v", vals, mean, err)
	}

	if _, err := eval.PairFiles(a, filepath.Join(b, "y.png")); !errors.Is(err, eval.ErrFileAndFolder) {
		t.Errorf("a folder and a file: %v", err)
	}
	writePNG(t, filepath.Join(b, "z.png"), 30)
	if _, err := eval.PairFiles(a, b); err == nil || !strings.Contains(err.Error(), "z.png is in "+b+" but not in "+a) {
		t.Errorf("a name in one folder only: %v", err)
	}
	files, isDir, err := eval.ImageFiles(b)
	if err != nil || !isDir || len(files) != 3 {
		t.Errorf("ImageFiles(%s) = %v, %v, %v", b, files, isDir, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := eval.PairFiles(empty, empty); err == nil || !strings.Contains(err.Error(), "no images") {
		t.Errorf("empty folders: %v", err)
	}
}
