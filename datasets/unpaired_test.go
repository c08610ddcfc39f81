package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An unpaired folder made here loads both domains; missing and empty
// domain folders are errors that name them.
func TestLoadTranslation(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := LoadTranslation(filepath.Join(dir, "nope"), Options{}); err == nil || !strings.Contains(err.Error(), "no such folder") {
		t.Errorf("missing data set: %v", err)
	}
	writeImage(t, filepath.Join(dir, "trainA", "a.png"), patterned(6, 6, 0))
	writeImage(t, filepath.Join(dir, "trainA", "b.jpg"), patterned(6, 6, 1))
	if _, _, err := LoadTranslation(dir, Options{}); err == nil || !strings.Contains(err.Error(), "no trainB folder") {
		t.Errorf("missing trainB: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "trainB"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadTranslation(dir, Options{}); err == nil || !strings.Contains(err.Error(), "trainB") || !strings.Contains(err.Error(), "no images") {
		t.Errorf("empty trainB: %v", err)
	}
	writeImage(t, filepath.Join(dir, "trainB", "c.png"), patterned(8, 8, 2))
	a, b, err := LoadTranslation(dir, Options{Height: 6, Width: 6})
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 2 || b.Len() != 1 || b.Shape() != (Shape{3, 6, 6}) {
		t.Errorf("A %d, B %d of %v", a.Len(), b.Len(), b.Shape())
	}
	if _, _, err := LoadTranslation(dir, Options{Split: Test}); err == nil || !strings.Contains(err.Error(), "no testA folder") {
		t.Errorf("missing testA: %v", err)
	}
}

func TestLoadTranslationMNISTFashion(t *testing.T) {
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		t.Skip("Fashion-MNIST not installed (Debian package dataset-fashion-mnist)")
	}
	a, b, err := LoadTranslation(MNISTFashion, Options{Split: Test})
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 10000 || b.Len() != 10000 || a.Shape() != b.Shape() || a.Shape() != (Shape{1, 28, 28}) {
		t.Errorf("A %d of %v, B %d of %v", a.Len(), a.Shape(), b.Len(), b.Shape())
	}
}

// Crops and flips: drawn per image and epoch from the seed, the same for
// the same seed, a loader asks for them, and Image gives the centre crop.
func TestAugment(t *testing.T) {
	const n, side, crop = 6, 5, 3
	pix := make([]uint8, n*side*side)
	for i := range pix {
		pix[i] = uint8(i % 251)
	}
	s, err := NewSet("ramp", Shape{1, side, side}, pix, make([]int, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Augment(s, 6, 3, true, 1); err == nil {
		t.Error("crop larger than the images accepted")
	}
	a, err := Augment(s, crop, crop, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Augment(s, crop, crop, true, 1)
	other, _ := Augment(s, crop, crop, true, 2)
	full := make([]float32, side*side)
	got := make([]float32, crop*crop)
	flips, offsets, differ := 0, map[[2]int]bool{}, false
	for epoch := range 4 {
		for i := range n {
			y, x, f := a.AugmentParams(i, epoch)
			if y2, x2, f2 := b.AugmentParams(i, epoch); y != y2 || x != x2 || f != f2 {
				t.Fatalf("same seed, different crops")
			}
			if y2, x2, f2 := other.AugmentParams(i, epoch); y != y2 || x != x2 || f != f2 {
				differ = true
			}
			if y < 0 || x < 0 || y > side-crop || x > side-crop {
				t.Fatalf("offset %d,%d", y, x)
			}
			offsets[[2]int{y, x}] = true
			if f {
				flips++
			}
			s.Image(full, i)
			a.ImageAt(got, i, epoch)
			for r := range crop {
				for c := range crop {
					sc := x + c
					if f {
						sc = x + crop - 1 - c
					}
					if got[r*crop+c] != full[(y+r)*side+sc] {
						t.Fatalf("image %d epoch %d: pixel %d,%d wrong", i, epoch, r, c)
					}
				}
			}
		}
	}
	if flips == 0 || flips == 4*n || len(offsets) < 4 || !differ {
		t.Errorf("%d flips of %d, %d offsets, seeds differ %v", flips, 4*n, len(offsets), differ)
	}
	a.Image(got, 0)
	s.Image(full, 0)
	if !slices.Equal(got[:crop], full[side+1:side+1+crop]) {
		t.Errorf("Image is not the centre crop")
	}
	cc, err := CentreCrop(s, crop, crop)
	if err != nil {
		t.Fatal(err)
	}
	cc.Image(full[:crop*crop], 0)
	if cc.Shape() != a.Shape() || !slices.Equal(got, full[:crop*crop]) {
		t.Errorf("CentreCrop differs from Augmented.Image")
	}
	// The loader serves ImageAt of its epoch.
	l, err := NewLoader(a, n, 9)
	if err != nil {
		t.Fatal(err)
	}
	for epoch := range 2 {
		imgs, _ := l.Next()
		perm := make([]int32, n)
		permute(perm, 9, epoch)
		for k, i := range perm {
			a.ImageAt(got, int(i), epoch)
			if !slices.Equal(imgs[k*crop*crop:(k+1)*crop*crop], got) {
				t.Fatalf("epoch %d: loader image %d is not ImageAt", epoch, k)
			}
		}
	}
}
