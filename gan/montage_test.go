package gan_test

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/positgan/positgan/gan"
)

func solid(w, h int, c color.Color) image.Image {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(m, m.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return m
}

// TestMontage checks a small montage against one laid out by hand: three
// tiles of different sizes in rows of two, so that the columns take their
// widest tile and the rows their tallest, and one label wider than its
// tile.
func TestMontage(t *testing.T) {
	red, green, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}, color.RGBA{0, 0, 255, 255}
	tiles := []gan.Tile{
		{Image: solid(20, 10, red), Label: "A"},
		{Image: solid(9, 6, green), Label: "BC"}, // 14 pixels wide
		{Image: solid(12, 16, blue), Label: "D"},
	}
	m := gan.Montage{Cols: 2, Gap: 2, Top: 3, Band: 14, Baseline: 3}

	// Columns 20 and 9 wide, rows 10 and 16 tall:
	// x: gap 0-2, column 2-22, gap 22-24, column 24-33, gap 33-35;
	// y: top 0-3, band 3-17, row 17-27, gap 27-29, band 29-43, row 43-59, gap 59-61.
	if got, want := m.Bounds(tiles), image.Rect(0, 0, 35, 61); got != want {
		t.Fatalf("Bounds = %v, want %v", got, want)
	}
	if got, want := (&gan.Montage{Gap: 2, Top: 3, Band: 14}).Bounds(tiles), image.Rect(0, 0, 2+20+2+9+2+12+2, 3+14+16+2); got != want {
		t.Errorf("one row: Bounds = %v, want %v", got, want)
	}

	rects := []image.Rectangle{image.Rect(2, 17, 22, 27), image.Rect(24, 17, 33, 23), image.Rect(2, 43, 14, 59)}
	colors := []color.Color{red, green, blue}
	// Baselines 3 above the bands' bottoms (17, 43); each label centred
	// on its tile, Face7x13 being 7 pixels a character: "A" at 2+(20-7)/2,
	// "BC" at 24+(9-14)/2 (rounded towards zero) or at the tile's left
	// edge, "D" at 2+(12-7)/2.
	dots := []image.Point{{8, 14}, {22, 14}, {4, 40}}
	for _, wideLeft := range []bool{false, true} {
		m.WideLabelsLeft = wideLeft
		if wideLeft {
			dots[1] = image.Pt(24, 14)
		}
		want := image.NewRGBA(image.Rect(0, 0, 35, 61))
		draw.Draw(want, want.Bounds(), image.White, image.Point{}, draw.Src)
		for i, r := range rects {
			draw.Draw(want, r, image.NewUniform(colors[i]), image.Point{}, draw.Src)
			d := font.Drawer{Dst: want, Src: image.Black, Face: basicfont.Face7x13, Dot: fixed.P(dots[i].X, dots[i].Y)}
			d.DrawString(tiles[i].Label)
		}

		// A destination away from the origin holds the same montage.
		for _, origin := range []image.Point{{}, {10, -20}} {
			got := image.NewRGBA(want.Bounds().Add(origin))
			m.Draw(got, tiles)
			bad := 0
			for y := range 61 {
				for x := range 35 {
					if g, w := got.RGBAAt(origin.X+x, origin.Y+y), want.RGBAAt(x, y); g != w {
						if bad++; bad <= 5 {
							t.Errorf("WideLabelsLeft %v, origin %v: (%d, %d) = %v, want %v", wideLeft, origin, x, y, g, w)
						}
					}
				}
			}
		}
	}
}
