package models

// Tiled super-resolution of large images, as Real-ESRGAN's tile_process
// (realesrgan/utils.py) does it: even with each activation freed after
// its last reader (the Applier's recycling program), RRDBNet's live set
// and its ×4 tail are tens of kilobytes per input pixel, so a large
// image is enlarged a tile at a time, each tile with a margin of context
// that is cropped off again.

import (
	"fmt"
	"image"
	"runtime"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
)

// A Tiling is how an Upscaler cuts an image into tiles (Real-ESRGAN's
// --tile and --tile_pad). Tiles of Tile×Tile input pixels start at the
// multiples of Tile (those of the last row and column are cut by the
// image); each is enlarged with Pad more input pixels on every side, as
// far as the image reaches, and its enlargement, the margin cropped off,
// is put in place. The zero Tiling enlarges the whole image at once.
//
// A pixel of the enlargement is the one the whole image gives, to the
// bit, when Pad covers the generator's receptive field
// (Upscaler.ReceptiveRadius): every convolution computes each output
// pixel from its own neighbourhood, in an order that does not depend on
// the image's size, and the policy's formats round each value alone (MX
// and block formats block along channels, not pixels). With a smaller
// Pad, pixels near the tiles' seams differ.
type Tiling struct {
	Tile int // side of a tile in input pixels; 0: no tiling
	Pad  int // input pixels of context around each tile
}

// Check returns an error if t's fields are negative.
func (t Tiling) Check() error {
	switch {
	case t.Tile < 0:
		return fmt.Errorf("models: tile %d: want 0 (no tiling) or a side in pixels", t.Tile)
	case t.Pad < 0:
		return fmt.Errorf("models: tile pad %d: want 0 or more pixels", t.Pad)
	}
	return nil
}

// ReceptiveRadius returns the number of input pixels on each side of a
// pixel on which the generator depends at most, or 0 if the model is not
// ESRGAN's (trained or imported). For ESRGAN with B RRDBs it is 15·B + 4:
// one per 3×3 convolution before the upsampling (conv_first, 15 per RRDB,
// conv_body) and 2 for those after it (each reaches 1 enlarged pixel
// further, of which there are 2 or more per input pixel: at x4 they reach
// 1/2 + 3·1/4 input pixels, at x2 3·1/2). A Tiling with Pad at least this
// gives the untiled enlargement.
func (u *Upscaler) ReceptiveRadius() int {
	var m *esrgan
	switch n := u.nets.Model.(type) {
	case *esrgan:
		m = n
	case *esrganPyTorch:
		m = n.net
	default:
		return 0
	}
	return 15*m.blocks + 4
}

// tile is one tile of a Tiling: the input pixels it enlarges, [x0, x1) ×
// [y0, y1), and those it reads, [px0, px1) × [py0, py1).
type tile struct{ x0, x1, y0, y1, px0, px1, py0, py1 int }

// tiles returns the tiles of an h×w image, row by row, as Real-ESRGAN's
// tile_process visits them; t.Tile is positive.
func (t Tiling) tiles(h, w int) []tile {
	var ts []tile
	for y0 := 0; y0 < h; y0 += t.Tile {
		for x0 := 0; x0 < w; x0 += t.Tile {
			x1, y1 := min(x0+t.Tile, w), min(y0+t.Tile, h)
			ts = append(ts, tile{x0, x1, y0, y1, max(x0-t.Pad, 0), min(x1+t.Pad, w), max(y0-t.Pad, 0), min(y1+t.Pad, h)})
		}
	}
	return ts
}

// EnlargeTiled returns lr enlarged by the generator as Enlarge does,
// tile by tile as t cuts it. Only one tile's graph is held at a time (a
// new one is built where a tile's size differs from the last one's, at
// the image's right and bottom edges), so the memory it takes beyond the
// input and the output is that of one padded tile.
func (u *Upscaler) EnlargeTiled(lr image.Image, t Tiling) ([]float32, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	b := lr.Bounds()
	if t.Tile == 0 || t.Tile >= b.Dx() && t.Tile >= b.Dy() {
		return u.Enlarge(lr)
	}
	p, h, w := datasets.Planes(lr)
	k := u.scale
	H, W := h*k, w*k
	y := make([]float32, 3*H*W)
	var (
		a      *gan.Applier
		ah, aw int // the size of a's tiles
		x, out []float32
	)
	for _, tl := range t.tiles(h, w) {
		th, tw := tl.py1-tl.py0, tl.px1-tl.px0
		if a == nil || th != ah || tw != aw {
			if a != nil {
				// Free the last tile's graph before the next is built:
				// left to the pacer, both would be live at once, twice
				// the memory a tile needs.
				a, x, out = nil, nil, nil
				runtime.GC()
			}
			var err error
			if a, err = gan.NewApplier(u.nets, u.group, []int{1, 3, th, tw}); err != nil {
				return nil, err
			}
			ah, aw = th, tw
			x = make([]float32, 3*th*tw)
			out = make([]float32, a.OutSize())
		}
		for c := range 3 {
			for r := range th {
				src := p[c*h*w+(tl.py0+r)*w+tl.px0:][:tw]
				dst := x[(c*th+r)*tw:][:tw]
				for i, v := range src {
					dst[i] = float32(v/127.5 - 1) // as Enlarge
				}
			}
		}
		if err := a.Apply(out, x); err != nil {
			return nil, err
		}
		// Crop the margin off: the tile's enlargement is (3, th·k, tw·k).
		oy, ox := (tl.y0-tl.py0)*k, (tl.x0-tl.px0)*k
		rows, cols := (tl.y1-tl.y0)*k, (tl.x1-tl.x0)*k
		for c := range 3 {
			for r := range rows {
				src := out[(c*th*k+oy+r)*tw*k+ox:][:cols]
				copy(y[(c*H+tl.y0*k+r)*W+tl.x0*k:][:cols], src)
			}
		}
	}
	// Free the last graph now: the pacer would let the caller's next
	// allocations (Image's conversion of y to 8 bits) grow the heap
	// beside it rather than into it.
	a, x, out = nil, nil, nil
	runtime.GC()
	return y, nil
}
