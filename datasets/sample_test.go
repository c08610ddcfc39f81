package datasets

import "testing"

// tinySet returns 10 one-pixel images of values 0 to 9, labelled i mod 3.
func tinySet(t *testing.T) *Set {
	t.Helper()
	pix := make([]uint8, 10)
	labels := make([]int, 10)
	for i := range pix {
		pix[i], labels[i] = uint8(i), i%3
	}
	ds, err := NewSet("tiny", Shape{1, 1, 1}, pix, labels, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestSample(t *testing.T) {
	ds := tinySet(t)
	s, err := Sample(ds, 4, 7)
	if err != nil || s.Len() != 4 {
		t.Fatalf("Sample: len %v, %v; want 4", s.Len(), err)
	}
	// The sample is the first epoch of a loader with the same seed.
	l, _ := NewLoader(ds, 1, 7)
	seen := map[float32]bool{}
	img := make([]float32, 1)
	for i := 0; i < 4; i++ {
		want, wantLabel := l.Next()
		s.Image(img, i)
		if img[0] != want[0] || s.Label(i) != wantLabel[0] {
			t.Errorf("sample %d = %v/%d, loader gives %v/%d", i, img[0], s.Label(i), want[0], wantLabel[0])
		}
		if seen[img[0]] {
			t.Errorf("sample repeats image %v", img[0])
		}
		seen[img[0]] = true
	}
	if all, _ := Sample(ds, 100, 1); all != Dataset(ds) {
		t.Error("a sample larger than the set is not the set itself")
	}
	if _, err := Sample(ds, 0, 1); err == nil {
		t.Error("empty sample accepted")
	}
}

func TestFirst(t *testing.T) {
	ds := tinySet(t)
	f, err := First(ds, 4)
	if err != nil || f.Len() != 4 {
		t.Fatalf("First: len %v, %v; want 4", f.Len(), err)
	}
	img, want := make([]float32, 1), make([]float32, 1)
	for i := range 4 {
		f.Image(img, i)
		ds.Image(want, i)
		if img[0] != want[0] || f.Label(i) != i%3 {
			t.Errorf("image %d = %v/%d, want %v/%d", i, img[0], f.Label(i), want[0], i%3)
		}
	}
	if f.Shape() != ds.Shape() || f.NumClasses() != 3 {
		t.Errorf("shape %v, %d classes; want %v, 3", f.Shape(), f.NumClasses(), ds.Shape())
	}
	if all, _ := First(ds, 10); all != Dataset(ds) {
		t.Error("the first 10 of 10 images are not the set itself")
	}
	if _, err := First(ds, 0); err == nil {
		t.Error("no images accepted")
	}
}
