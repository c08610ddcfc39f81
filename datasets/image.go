package datasets

import (
	"errors"
	"fmt"
	"image"

	"github.com/positgan/positgan/imageio"
)

// MaxImagePixels bounds the width × height of an image file OpenImage
// decodes: 16.7 million pixels (4096×4096), at most 128 MB decoded. A
// small file can declare a huge image (a 1.2 MB PNG of 100000×100000
// pixels); its size is read from the header and checked first.
const MaxImagePixels = imageio.DefaultMaxPixels

// OpenImage decodes an image file (JPEG, PNG, GIF, TIFF, BMP or WebP)
// with imageio, into the pixels PIL's Image.open(path).convert("RGB")
// gives (JPEG bit-exact with libjpeg; EXIF orientation not applied, as
// in PIL, pytorch-fid, torchvision and the reference CycleGAN code): an
// *image.Gray for gray files, an opaque *image.NRGBA otherwise. Its size
// is checked from the header first (positive, within MaxImagePixels), and
// only a regular file of at most imageio.DefaultMaxBytes is read.
// Errors are *FileErrors naming the file.
func OpenImage(path string) (image.Image, error) { return openImage(path, false) }

// openImage is OpenImage, applying the EXIF orientation if exif. Only a
// regular file is read, never beyond imageio.DefaultMaxBytes (see
// imageio.Open).
func openImage(path string, exif bool) (image.Image, error) {
	img, err := imageio.Open(path, imageio.Options{MaxPixels: MaxImagePixels, ExifOrientation: exif})
	var fe *imageio.FileError
	switch {
	case errors.As(err, &fe):
		return nil, &FileError{Path: path, Err: fe.Err}
	case err != nil:
		return nil, fmt.Errorf("datasets: %w", err)
	}
	return img, nil
}
