package models

import (
	"image"
	"image/color"
	"testing"
)

// gradient returns a w x h image whose pixel (x, y) is (x, y, k).
func gradient(w, h int, k uint8) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), k, 255})
		}
	}
	return m
}

func TestCropComparison(t *testing.T) {
	hr, lr := gradient(16, 12, 1), gradient(4, 3, 2)
	row := CropRow{Panels: []CropPanel{{Image: lr, Label: "LR", Scale: 4}, {Image: hr, Label: "HR"}}, Region: image.Rect(4, 4, 12, 12)}
	const zoom, gap, label = 3, 6, 16
	img, err := CropComparison([]CropRow{row, row}, zoom)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.Bounds().Size(), image.Pt(gap+2*(8*zoom+gap), gap+2*(label+8*zoom+gap)); got != want {
		t.Fatalf("size %v, want %v", got, want)
	}
	for _, tc := range []struct {
		x, y int // in the comparison
		want color.NRGBA
	}{
		{gap, gap + label, color.NRGBA{1, 1, 2, 255}},                                // LR (1, 1): HR (4, 4) / 4
		{gap + 4*zoom - 1, gap + label + 4*zoom - 1, color.NRGBA{1, 1, 2, 255}},      // still LR (1, 1)
		{gap + 4*zoom, gap + label, color.NRGBA{2, 1, 2, 255}},                       // LR (2, 1)
		{2*gap + 8*zoom, gap + label, color.NRGBA{4, 4, 1, 255}},                     // HR (4, 4)
		{2*gap + 8*zoom + 3*zoom + 2, gap + label + zoom, color.NRGBA{7, 5, 1, 255}}, // HR (7, 5)
		{0, 0, color.NRGBA{255, 255, 255, 255}},                                      // white margin
	} {
		if got := img.NRGBAAt(tc.x, tc.y); got != tc.want {
			t.Errorf("(%d, %d) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}

	bad := []struct {
		name string
		rows []CropRow
		zoom int
	}{
		{"no rows", nil, 1},
		{"zoom 0", []CropRow{row}, 0},
		{"off the LR grid", []CropRow{{Panels: row.Panels, Region: image.Rect(2, 4, 10, 12)}}, 1},
		{"outside", []CropRow{{Panels: row.Panels, Region: image.Rect(8, 4, 16, 16)}}, 1},
		{"ragged", []CropRow{row, {Panels: row.Panels[:1], Region: row.Region}}, 1},
		{"other size", []CropRow{row, {Panels: row.Panels, Region: image.Rect(4, 4, 8, 8)}}, 1},
	}
	for _, tc := range bad {
		if _, err := CropComparison(tc.rows, tc.zoom); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestCentreCrop(t *testing.T) {
	for _, tc := range []struct {
		w, h, side, k int
		want          image.Rectangle
	}{
		{256, 256, 96, 4, image.Rect(80, 80, 176, 176)},
		{510, 300, 96, 4, image.Rect(204, 100, 300, 196)},
		{40, 30, 96, 4, image.Rect(4, 0, 32, 28)},
		{17, 17, 10, 1, image.Rect(3, 3, 13, 13)},
	} {
		if got := CentreCrop(tc.w, tc.h, tc.side, tc.k); got != tc.want {
			t.Errorf("CentreCrop(%d, %d, %d, %d) = %v, want %v", tc.w, tc.h, tc.side, tc.k, got, tc.want)
		}
	}
}
