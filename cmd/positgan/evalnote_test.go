package main

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writePNG writes a w×h test image, gray or RGBA, to path.
func writePNG(t *testing.T, path string, w, h int, gray bool) {
	t.Helper()
	var img image.Image
	if gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = uint8(i * 37)
		}
		img = g
	} else {
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range c.Pix {
			c.Pix[i] = uint8(i * 13)
		}
		img = c
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

// eval fid says in one line on stderr how it brings a folder's images to
// the feature network's input, and takes folders of images of several
// sizes (it used to refuse them, suggesting a flag it does not have).
func TestEvalFIDFolderNote(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []struct {
			w, h int
			gray bool
		}
		note string // "" for none
	}{
		{"same", []struct {
			w, h int
			gray bool
		}{{28, 28, true}, {28, 28, true}}, ""},
		{"rgb", []struct {
			w, h int
			gray bool
		}{{32, 32, false}, {32, 32, false}}, "2 images of 32x32 colour, resized (bilinear) and made gray (luma 0.299R + 0.587G + 0.114B) for LeNet-MNIST's 28x28 gray input"},
		{"mixed", []struct {
			w, h int
			gray bool
		}{{28, 28, true}, {32, 32, false}, {40, 30, false}}, "3 images of 3 sizes (28x28, 32x32, 40x30): each centre-cropped and resized to 28x28 for LeNet-MNIST's 28x28 gray input"},
	} {
		dir := filepath.Join(t.TempDir(), tc.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, f := range tc.files {
			writePNG(t, filepath.Join(dir, string(rune('a'+i))+".png"), f.w, f.h, f.gray)
		}
		out, stderr, code := runCLI(t, "", "eval", "fid", dir, dir, "--n", "0")
		// FID of a set with itself is 0 up to rounding (1e-14 here,
		// depending on the pixels).
		fid, _, _ := strings.Cut(out, "\t")
		if v, err := strconv.ParseFloat(fid, 64); code != 0 || err != nil || math.Abs(v) > 1e-9 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, out, stderr)
			continue
		}
		want := ""
		if tc.note != "" {
			line := "note: " + dir + ": " + tc.note + "\n"
			want = line + line // one per image set
		}
		if stderr != want {
			t.Errorf("%s: stderr %q, want %q", tc.name, stderr, want)
		}
	}
}
