package models

import (
	"fmt"
	"image"

	"github.com/positgan/positgan/gan"
)

// A CropPanel is one column of a crop comparison: an image and its
// caption. Scale is how many times smaller than the high-resolution
// images it is (K for the low-resolution input, 1 or 0 otherwise).
type CropPanel struct {
	Image image.Image
	Label string
	Scale int
}

// A CropRow is one row of a crop comparison: the panels of one image and
// the region of it they show, in the coordinates of the high-resolution
// image (relative to its bounds' origin).
type CropRow struct {
	Panels []CropPanel
	Region image.Rectangle
}

// CropComparison draws a super-resolution comparison as papers show it:
// one row per image, one column per panel (typically LR | bicubic | SR |
// HR), each panel the row's region of its image; the regions of all rows
// have the same size. A panel with Scale K shows r/K enlarged K times by pixel
// repetition, so its pixels are seen as the network sees them; every
// panel is then enlarged zoom times by pixel repetition (no
// interpolation, which would hide the differences being compared). The
// caption is written above each panel. The image is white between panels.
func CropComparison(rows []CropRow, zoom int) (*image.NRGBA, error) {
	if len(rows) == 0 || len(rows[0].Panels) == 0 {
		return nil, fmt.Errorf("models: crop comparison: no panels")
	}
	size := rows[0].Region.Size()
	if zoom < 1 || rows[0].Region.Empty() {
		return nil, fmt.Errorf("models: crop comparison: zoom %d, region %v: want zoom >= 1 and a non-empty region", zoom, rows[0].Region)
	}
	cols := len(rows[0].Panels)
	var tiles []gan.Tile
	for i, row := range rows {
		r := row.Region
		switch {
		case len(row.Panels) != cols:
			return nil, fmt.Errorf("models: crop comparison: row %d has %d panels, row 0 has %d", i, len(row.Panels), cols)
		case r.Size() != size:
			return nil, fmt.Errorf("models: crop comparison: row %d shows a %v region, row 0 a %v one", i, r.Size(), size)
		}
		for _, p := range row.Panels {
			k := max(p.Scale, 1)
			b := p.Image.Bounds()
			if r.Min.X%k != 0 || r.Min.Y%k != 0 || r.Max.X%k != 0 || r.Max.Y%k != 0 {
				return nil, fmt.Errorf("models: crop comparison: region %v is not on the %d-pixel grid of panel %q", r, k, p.Label)
			}
			if r.Max.X > b.Dx()*k || r.Max.Y > b.Dy()*k || r.Min.X < 0 || r.Min.Y < 0 {
				return nil, fmt.Errorf("models: crop comparison: region %v outside panel %q (%dx%d at scale %d)", r, p.Label, b.Dx(), b.Dy(), k)
			}
			tiles = append(tiles, gan.Tile{Image: enlarge(p.Image, r, k, zoom), Label: p.Label})
		}
	}
	// A caption wider than its panel starts at the panel's left edge: the
	// first column's would otherwise run off the image.
	m := gan.Montage{Cols: cols, Gap: 6, Top: 6, Band: 16, Baseline: 4, WideLabelsLeft: true}
	dst := image.NewNRGBA(m.Bounds(tiles))
	m.Draw(dst, tiles) // NRGBA to NRGBA: the panels' pixels are copied as they are
	return dst, nil
}

// enlarge returns the region r of img enlarged zoom times by pixel
// repetition, r being in the coordinates of img enlarged k times
// (relative to its bounds' origin) and on the k-pixel grid.
func enlarge(img image.Image, r image.Rectangle, k, zoom int) *image.NRGBA {
	b := img.Bounds()
	w, h := r.Dx()*zoom, r.Dy()*zoom
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		sy := b.Min.Y + (r.Min.Y+y/zoom)/k
		for x := range w {
			sx := b.Min.X + (r.Min.X+x/zoom)/k
			dst.Set(x, y, img.At(sx, sy))
		}
	}
	return dst
}

// CentreCrop returns the square region of side at most side in the
// middle of an image of w x h pixels, its corners on the k-pixel grid.
func CentreCrop(w, h, side, k int) image.Rectangle {
	k = max(k, 1)
	side = min(side, w, h) / k * k
	x := (w - side) / 2 / k * k
	y := (h - side) / 2 / k * k
	return image.Rect(x, y, x+side, y+side)
}
