package imageio

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"

	"golang.org/x/image/riff"
	"golang.org/x/image/vp8"
	"golang.org/x/image/vp8l"
)

var errWebP = errors.New("webp: invalid format")

// webpConfig returns the size of a WebP file's image from its frame header
// (VP8 or VP8L chunk), the size the decoder allocates. webp.DecodeConfig
// returns the canvas of a VP8X chunk instead, which the frame after it
// need not match: a 1×1 canvas could front a 16383×16383 frame. A canvas
// must have its frame's size, as libwebp requires of a still image.
func webpConfig(r io.Reader) (image.Config, error) {
	form, rr, err := riff.NewReader(r)
	if err != nil {
		return image.Config{}, err
	}
	if form != (riff.FourCC{'W', 'E', 'B', 'P'}) {
		return image.Config{}, errWebP
	}
	var canvas *image.Config
	for {
		id, n, data, err := rr.Next()
		if err == io.EOF {
			err = errWebP
		}
		if err != nil {
			return image.Config{}, err
		}
		var cfg image.Config
		switch id {
		case riff.FourCC{'V', 'P', '8', 'X'}:
			var b [10]byte
			if n != 10 || canvas != nil {
				return image.Config{}, errWebP
			}
			if _, err := io.ReadFull(data, b[:]); err != nil {
				return image.Config{}, err
			}
			canvas = &image.Config{
				ColorModel: color.NRGBAModel,
				Width:      1 + (int(b[4]) | int(b[5])<<8 | int(b[6])<<16),
				Height:     1 + (int(b[7]) | int(b[8])<<8 | int(b[9])<<16),
			}
			continue
		case riff.FourCC{'V', 'P', '8', ' '}:
			if int32(n) < 0 {
				return image.Config{}, errWebP
			}
			d := vp8.NewDecoder()
			d.Init(data, int(n))
			fh, err := d.DecodeFrameHeader()
			if err != nil {
				return image.Config{}, err
			}
			cfg = image.Config{ColorModel: color.YCbCrModel, Width: fh.Width, Height: fh.Height}
		case riff.FourCC{'V', 'P', '8', 'L'}:
			if cfg, err = vp8l.DecodeConfig(data); err != nil {
				return image.Config{}, err
			}
		default:
			continue
		}
		if canvas != nil && (canvas.Width != cfg.Width || canvas.Height != cfg.Height) {
			return image.Config{}, fmt.Errorf("webp: frame of %dx%d pixels on a canvas of %dx%d", cfg.Width, cfg.Height, canvas.Width, canvas.Height)
		}
		return cfg, nil
	}
}
