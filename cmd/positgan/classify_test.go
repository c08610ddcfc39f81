package main

import (
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
)

// writeGrayPNG writes 8-bit gray pixels of a w×h image as a PNG file.
func writeGrayPNG(t *testing.T, path string, pix []uint8, w, h int) {
	t.Helper()
	img := &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// classify prints the shipped LeNet's class of MNIST digits written as
// PNG files, in file order, agreeing with their labels; an RGB image of
// another size is brought to 28x28 gray and said so.
func TestClassify(t *testing.T) {
	test, err := datasets.LoadMNIST(datasets.Test)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	digits := filepath.Join(dir, "digits")
	os.Mkdir(digits, 0o755)
	const n = 40
	for i := range n {
		writeGrayPNG(t, filepath.Join(digits, fmt.Sprintf("%03d_%d.png", i, test.Label(i))), test.Pixels(i), 28, 28)
	}
	// Digit 0 enlarged to 56x56 RGB.
	big := image.NewNRGBA(image.Rect(0, 0, 56, 56))
	for y := range 56 {
		for x := range 56 {
			v := test.Pixels(0)[(y/2)*28+x/2]
			big.Set(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	bigFile := filepath.Join(dir, "big.png")
	f, _ := os.Create(bigFile)
	png.Encode(f, big)
	f.Close()

	out, stderr, code := runCLI(t, "", "classify", bigFile, digits)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "1 of 41 images brought to LeNet-MNIST's 1x28x28 gray input") {
		t.Errorf("stderr: %q", stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+2 || strings.Join(rows[0], ",") != "file,class,confidence" {
		t.Fatalf("CSV has %d rows, header %q", len(rows), rows[0])
	}
	if rows[1][0] != bigFile || rows[1][1] != strconv.Itoa(test.Label(0)) {
		t.Errorf("enlarged RGB digit %d: %q", test.Label(0), rows[1])
	}
	right := 0
	for i, r := range rows[2:] {
		if want := filepath.Join(digits, fmt.Sprintf("%03d_%d.png", i, test.Label(i))); r[0] != want {
			t.Fatalf("row %d: file %s, want %s", i, r[0], want)
		}
		if r[1] == strconv.Itoa(test.Label(i)) {
			right++
		}
		if c, err := strconv.ParseFloat(r[2], 64); err != nil || c < 0.1 || c > 1 || len(r[2]) > 12 {
			t.Errorf("row %d: confidence %q", i, r[2])
		}
	}
	if right < n*9/10 {
		t.Errorf("%d of %d digits classified as their label", right, n)
	}

	for _, args := range [][]string{
		{"classify"},
		{"classify", "--features", "inception:x", digits},
		{"classify", "--features", "lenet:", digits},
		{"lenet", "test", "--features", "nosuch"}, // issue 14 item 11: was exit 1
	} {
		if _, stderr, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	if _, _, code := runCLI(t, "", "classify", filepath.Join(dir, "missing.png")); code != 1 {
		t.Errorf("a missing file: exit %d, want 1", code)
	}
}
