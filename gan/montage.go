package gan

import (
	"image"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// A Tile is one image of a montage and the label written above it.
type Tile struct {
	Image image.Image
	Label string
}

// A Montage lays out labelled images (sample grids, crops) on a white
// ground, to compare them at a glance: the tiles fill rows of Cols, left
// to right and top to bottom. A column is as wide as its widest tile and a row as tall
// as its tallest; a smaller tile sits at the top left of its cell. Each
// row has a band above it for the labels, which are written in black in
// basicfont.Face7x13, centred on their tiles.
type Montage struct {
	Cols     int // tiles per row; 0 puts them all in one row
	Gap      int // white pixels between columns, left and right of them, and below each row
	Top      int // white pixels above the first row's band
	Band     int // height of the label band above each row
	Baseline int // height of the labels' baseline above the band's bottom edge
	// WideLabelsLeft starts a label wider than its tile at the tile's
	// left edge, so that it overhangs to the right only, instead of
	// centring it.
	WideLabelsLeft bool
}

// cells returns the widths of the columns and the heights of the rows of
// the montage of tiles.
func (m *Montage) cells(tiles []Tile) (widths, heights []int) {
	cols := m.Cols
	if cols <= 0 || cols > len(tiles) {
		cols = len(tiles)
	}
	widths = make([]int, cols)
	if cols > 0 {
		heights = make([]int, (len(tiles)+cols-1)/cols)
	}
	for i, t := range tiles {
		s := t.Image.Bounds().Size()
		widths[i%cols] = max(widths[i%cols], s.X)
		heights[i/cols] = max(heights[i/cols], s.Y)
	}
	return widths, heights
}

// Bounds returns the bounds of the montage of tiles, with its origin at
// (0, 0).
func (m *Montage) Bounds(tiles []Tile) image.Rectangle {
	widths, heights := m.cells(tiles)
	w, h := m.Gap, m.Top
	for _, cw := range widths {
		w += cw + m.Gap
	}
	for _, rh := range heights {
		h += m.Band + rh + m.Gap
	}
	return image.Rect(0, 0, w, h)
}

// Draw draws the montage of tiles onto dst, whose size should be that of
// m.Bounds(tiles). The tiles' pixels are copied (draw.Src), so that an
// *image.NRGBA tile drawn onto an *image.NRGBA keeps its exact values,
// even where it is translucent.
func (m *Montage) Draw(dst draw.Image, tiles []Tile) {
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	widths, heights := m.cells(tiles)
	o := dst.Bounds().Min
	y := o.Y + m.Top
	for r, rh := range heights {
		x := o.X + m.Gap
		for c, cw := range widths {
			i := r*len(widths) + c
			if i == len(tiles) {
				break
			}
			t := tiles[i]
			b := t.Image.Bounds()
			draw.Draw(dst, image.Rect(x, y+m.Band, x+b.Dx(), y+m.Band+b.Dy()), t.Image, b.Min, draw.Src)
			d := font.Drawer{Dst: dst, Src: image.Black, Face: basicfont.Face7x13}
			dx := (b.Dx() - d.MeasureString(t.Label).Round()) / 2
			if m.WideLabelsLeft {
				dx = max(dx, 0)
			}
			d.Dot = fixed.P(x+dx, y+m.Band-m.Baseline)
			d.DrawString(t.Label)
			x += cw + m.Gap
		}
		y += m.Band + rh + m.Gap
	}
}
