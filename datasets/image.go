package datasets

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"os"

	"github.com/disintegration/imaging"
)

// MaxImagePixels bounds the width × height of an image file OpenImage
// decodes: 16.7 million pixels (4096×4096), at most 128 MB decoded. A
// small file can declare a huge image (a 1.2 MB PNG of 100000×100000
// pixels); its size is read from the header and checked first.
const MaxImagePixels = 1 << 24

// OpenImage decodes an image file (JPEG, PNG, GIF, TIFF or BMP) as
// imaging.Open does, with the same options, after checking from its
// header that its size is positive and within MaxImagePixels. Errors are
// *FileErrors naming the file.
func OpenImage(path string, opts ...imaging.DecodeOption) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	img, err := decodeImage(f, opts...)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return img, nil
}

// decodeImage is OpenImage for a reader that can seek back to the start.
func decodeImage(r io.ReadSeeker, opts ...imaging.DecodeOption) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bufio.NewReader(r))
	if err != nil {
		return nil, err
	}
	if w, h := int64(cfg.Width), int64(cfg.Height); w <= 0 || h <= 0 || w*h > MaxImagePixels {
		return nil, FormatError(fmt.Sprintf("image of %dx%d pixels: want a positive size of at most %d pixels", w, h, MaxImagePixels))
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, err := imaging.Decode(r, opts...)
	if err != nil {
		return nil, err
	}
	// The header and the data must agree (a GIF frame, say, can be
	// larger than its header's screen).
	if b := img.Bounds(); int64(b.Dx())*int64(b.Dy()) > MaxImagePixels {
		return nil, FormatError(fmt.Sprintf("image of %dx%d pixels exceeds %d pixels", b.Dx(), b.Dy(), MaxImagePixels))
	}
	return img, nil
}
